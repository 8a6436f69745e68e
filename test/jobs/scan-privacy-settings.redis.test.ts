// Scan privacy settings and DNT / Sec-GPC in Redis mode: counted in Redis, read after the rollup; see
// scan-privacy-suite.
import { useRedisScanApp } from '../helpers/redis-scan-app.js';
import { scanPrivacySuite } from '../helpers/scan-privacy-suite.js';

scanPrivacySuite('Redis mode', useRedisScanApp({ TRUST_PROXY: '1' }));
