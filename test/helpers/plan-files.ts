// Plans as an operator writes them in a QR_PLANS_FILE, for the plans-file and start-up suites.

/** Plan `team`: free of charge, no limit on requests, QR codes or burst, PNG/WebP/SVG; any field replaced. */
export function teamPlan(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'team',
    name: 'Team',
    monthlyPriceUsd: 0,
    requestsPerMonth: null,
    qrsPerMonth: null,
    burstPerSecond: null,
    formats: ['png', 'webp', 'svg'],
    ...overrides,
  };
}
