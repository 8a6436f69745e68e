// Erasing a code's scans in the embedded default; see scan-erase-suite.
import { useTestApp } from '../helpers/app.js';
import { scanEraseSuite } from '../helpers/scan-erase-suite.js';

const t = useTestApp();

scanEraseSuite('embedded', () => ({
  t,
  settle: () => t.stores.scans.flush(),
  flush: () => t.stores.scans.flush(),
}));
