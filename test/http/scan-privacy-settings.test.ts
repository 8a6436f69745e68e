// Scan privacy settings and DNT / Sec-GPC in the embedded default (SQLite): see scan-privacy-suite.
import { useTestApp } from '../helpers/app.js';
import { scanPrivacySuite } from '../helpers/scan-privacy-suite.js';

const t = useTestApp({ env: { TRUST_PROXY: '1' } });

scanPrivacySuite('embedded', () => ({ t, settle: () => t.stores.scans.flush() }));
