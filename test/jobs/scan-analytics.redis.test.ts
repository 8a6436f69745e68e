// Scan analytics in Redis mode: counted in Redis, read after the rollup into the system of record; see
// scan-analytics-suite.
import { useRedisScanApp } from '../helpers/redis-scan-app.js';
import { scanAnalyticsSuite } from '../helpers/scan-analytics-suite.js';

scanAnalyticsSuite('Redis mode', useRedisScanApp({ TRUST_PROXY: '1' }));
