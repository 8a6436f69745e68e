// Scan analytics in the embedded default (SQLite): see scan-analytics-suite.
import { useTestApp } from '../helpers/app.js';
import { scanAnalyticsSuite } from '../helpers/scan-analytics-suite.js';

const t = useTestApp({ env: { TRUST_PROXY: '1' } });

scanAnalyticsSuite('embedded', () => ({ t, settle: () => t.stores.scans.flush() }));
