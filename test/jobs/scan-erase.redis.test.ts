// Erasing a code's scans in Redis mode: the hot counters and the ledger; see scan-erase-suite.
import { useRedisScanApp } from '../helpers/redis-scan-app.js';
import { scanEraseSuite } from '../helpers/scan-erase-suite.js';

scanEraseSuite('Redis mode', useRedisScanApp());
