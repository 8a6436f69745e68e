// Types of scripts/system-tools.mjs for the TypeScript that imports it (the test preflight).
export interface SystemTool {
  name: string;
  bin?: string;
  python?: string;
  library?: string;
  package: string;
  why: string;
}
export const SYSTEM_TOOLS: readonly SystemTool[];
export function systemPackages(): string[];
export function missingSystemTools(): SystemTool[];
