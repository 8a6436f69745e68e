// Asks a server started with --inspect for a full garbage collection (the inspector's HeapProfiler.collectGarbage).
import { execFileSync } from 'node:child_process';

/**
 * The client, run by a node with WebSocket (Node 20 needs --experimental-websocket; later versions have it built in).
 */
const CLIENT = `
const [target] = await (await fetch('http://127.0.0.1:' + process.argv[1] + '/json/list')).json();
const socket = new WebSocket(target.webSocketDebuggerUrl);
await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
const answered = new Promise((resolve) => { socket.onmessage = (m) => JSON.parse(m.data).id === 1 && resolve(); });
socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
await answered;
socket.close();
`;

/**
 * Runs a major GC in the process whose inspector listens on `inspectPort`: what memory still holds afterwards is held,
 * not
 * garbage V8 has not got round to (it starts a major GC on growth, never on memory becoming free).
 */
export function collectGarbage(inspectPort: number): void {
  const args = ['--experimental-websocket', '--input-type=module', '-e', CLIENT, String(inspectPort)];
  execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 30_000 });
}
