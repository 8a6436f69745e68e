// Campaign options of dynamic codes in the embedded default: rules, expiry, scan limits, UTM, forwarded query,
// passwords.
import { useTestApp } from '../helpers/app.js';
import { campaignSuite } from '../helpers/campaign-suite.js';

const t = useTestApp();
campaignSuite('embedded', () => t);
