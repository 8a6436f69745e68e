// Reads the commands the MongoDB stand-in recorded and names each one on a sharded collection that mongos could not
// send to one shard.
import { readFile } from 'node:fs/promises';
import { mongo } from 'mongoose';

const { EJSON } = mongo.BSON;
type Document = mongo.BSON.Document;

export type ShardKeys = Readonly<Record<string, Readonly<Record<string, number>>>>;

/** One recorded command, as the stand-in wrote it (`--record`). */
interface Recorded {
  command: string;
  doc: Document;
}

export async function readRecordedCommands(file: string): Promise<Recorded[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => EJSON.parse(line, { relaxed: false }) as Recorded);
}

/** A value mongos targets shards by: a plain value, or `$in` of plain values; a range or `$ne` is not. */
function targets(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date)
    return value !== undefined;
  const ops = Object.keys(value);
  if (ops.length === 0 || !ops.every((op) => op.startsWith('$'))) return !ops.some((op) => op.startsWith('$'));
  const { $in, $eq } = value as { $in?: unknown; $eq?: unknown };
  if ($eq !== undefined) return targets($eq);
  return Array.isArray($in) && $in.length > 0 && $in.every((v) => targets(v) && (typeof v !== 'object' || v === null));
}

/** A field's value in a filter, at its top level or in a top-level `$and`. */
function fieldOf(filter: Document, field: string): unknown {
  if (field in filter) return filter[field];
  const and = filter.$and as Document[] | undefined;
  return and?.map((part) => fieldOf(part, field)).find((value) => value !== undefined);
}

/** Why this filter is not one mongos can send to one shard (or to the shards its `$in` names); undefined when it is. */
function filterProblem(
  filter: Document | undefined,
  key: Readonly<Record<string, number>>,
  upsert: boolean,
): string | undefined {
  const fields = Object.keys(key);
  const needed = upsert ? fields : fields.slice(0, 1);
  const missing = needed.filter((field) => !targets(fieldOf(filter ?? {}, field)));
  if (missing.length === 0) return undefined;
  return `${upsert ? 'upsert ' : ''}filter ${EJSON.stringify(filter ?? {})} lacks ${missing.join(', ')} by equality`;
}

/** Each problem found: the command, its collection and what its filter lacks; [] when every command carries its key. */
export function shardKeyProblems(commands: readonly Recorded[], shardKeys: ShardKeys): string[] {
  const problems: string[] = [];
  const check = (collection: string, command: string, filter: Document | undefined, upsert = false) => {
    const key = shardKeys[collection];
    if (!key) return;
    const problem = filterProblem(filter, key, upsert);
    if (problem) problems.push(`${command} on ${collection}: ${problem}`);
  };
  for (const { command, doc } of commands) {
    const collection = doc[command] as string;
    switch (command) {
      case 'find':
      case 'count':
      case 'distinct':
        check(collection, command, (doc.filter ?? doc.query) as Document | undefined);
        break;
      case 'findAndModify':
      case 'findandmodify':
        check(collection, command, doc.query as Document | undefined, doc.upsert === true);
        break;
      case 'update':
        for (const u of doc.updates as Document[]) check(collection, command, u.q as Document, u.upsert === true);
        break;
      case 'delete':
        for (const d of doc.deletes as Document[]) check(collection, command, d.q as Document);
        break;
      case 'insert':
        // A document is placed by its whole key: each inserted one must carry every field of it.
        for (const d of doc.documents as Document[]) check(collection, command, d, true);
        break;
      case 'aggregate': {
        const [first] = (doc.pipeline ?? []) as Document[];
        check(collection, command, first?.$match as Document | undefined);
        break;
      }
      default:
        break;
    }
  }
  return problems;
}
