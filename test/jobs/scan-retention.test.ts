// Scan retention in the embedded default; see scan-retention-suite.
import { useTestApp } from '../helpers/app.js';
import { scanRetentionSuite } from '../helpers/scan-retention-suite.js';

const t = useTestApp();

scanRetentionSuite('embedded', () => ({ t, settle: () => t.stores.scans.flush() }));
