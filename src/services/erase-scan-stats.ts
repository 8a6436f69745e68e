// Use case: erase a dynamic code's scan data (the right to erasure), in the hot counters first, then the ledger.
import type { ScanCounters, ScanLedger } from '../domain/ports/scan-ledger.js';
import { getCode, type DynamicCodeDeps } from './dynamic-codes.js';

export interface EraseScanStatsDeps extends DynamicCodeDeps {
  scanLedger: ScanLedger;
  /** Redis mode's hot counters; absent in the embedded default, where the ledger is all there is. */
  scanCounters?: ScanCounters | undefined;
}

/**
 * Every day's counts and splits and the visitor digests go, and the code's all-time count is zero again; the scan
 * limit's allowance stays (a limit the owner set, not statistics). Another account's code is not_found. Counters go
 * before the ledger, so no later rollup copies an erased day back; one that read them before erases again what it
 * wrote (ScanCounters.acknowledge).
 */
export async function eraseScanStats(deps: EraseScanStatsDeps, accountId: string, codeId: string): Promise<void> {
  const code = await getCode(deps, accountId, codeId);
  await deps.scanCounters?.erase(code.accountId, code.id, deps.clock());
  await deps.scanLedger.erase(code.id);
}
