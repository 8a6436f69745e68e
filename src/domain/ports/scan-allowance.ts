// Port: how many scans a code with `maxScans` has let through, taken one at a time on the redirect.

/**
 * Contract (test/contracts/scan-allowance.contract.ts): `take` is atomic — under any concurrency at most
 * `maxScans` calls for one code answer true; past it every call answers false and changes nothing. Raising
 * `maxScans` later lets that many more through. Codes are independent.
 */
export interface ScanAllowance {
  take(codeId: string, maxScans: number): Promise<boolean>;
}
