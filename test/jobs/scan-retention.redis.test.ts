// Scan retention in Redis mode: counted in Redis, rolled up, then swept in the store; see scan-retention-suite.
import { useRedisScanApp } from '../helpers/redis-scan-app.js';
import { scanRetentionSuite } from '../helpers/scan-retention-suite.js';

scanRetentionSuite('Redis mode', useRedisScanApp());
