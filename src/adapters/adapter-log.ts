// The slice of a pino logger that adapters write to (a Fastify app.log fits).
export interface AdapterLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const SILENT_LOG: AdapterLog = { info() {}, warn() {}, error() {} };
