// DynamicCodeStore on SQLite: atomic per-account limit, tenant-scoped reads and writes, slugs never reused.
import { NO_ROUTING, routingFrom, type CodeRouting } from '../../domain/code-routing.js';
import { vanityFrom, type Vanity } from '../../domain/custom-domain.js';
import type { CodeStatus, DynamicCode, SlugTarget } from '../../domain/dynamic-code.js';
import type * as port from '../../domain/ports/dynamic-code-store.js';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';
import { newId } from '../../domain/record-id.js';

interface CodeRow {
  id: string;
  account_id: string;
  slug: string;
  target: string;
  name: string | null;
  status: CodeStatus;
  disabled_reason: string | null;
  routing: string | null;
  domain_id: string | null;
  vanity_host: string | null;
  vanity_slug: string | null;
  scans: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

const COLUMNS =
  'id, account_id, slug, target, name, status, disabled_reason, routing, domain_id, vanity_host, vanity_slug, ' +
  'scans, created_at, updated_at, deleted_at';
const LIVE = 'deleted_at IS NULL';

function isFiltered(query: port.CodeQuery): boolean {
  return (
    (query.order ?? 'newest') !== 'newest' ||
    query.text !== undefined ||
    query.status !== undefined ||
    query.domainId !== undefined ||
    query.slug !== undefined
  );
}

/** The SQL of a list with conditions; its values follow the account id. */
function filteredList(query: port.CodeQuery): { sql: string; values: unknown[] } {
  const conditions = ['account_id = ?', LIVE];
  const values: unknown[] = [];
  if (query.text !== undefined) {
    // instr on lower-cased columns: a plain substring, with no LIKE wildcards to escape.
    conditions.push(
      "(instr(lower(coalesce(name, '')), ?) > 0 OR instr(lower(target), ?) > 0 OR instr(lower(slug), ?) > 0 OR " +
        "instr(coalesce(vanity_slug, ''), ?) > 0)",
    );
    values.push(query.text, query.text, query.text, query.text);
  }
  if (query.status !== undefined) {
    conditions.push('status = ?');
    values.push(query.status);
  }
  if (query.domainId === null) conditions.push('domain_id IS NULL');
  else if (query.domainId !== undefined) {
    conditions.push('domain_id = ?');
    values.push(query.domainId);
  }
  if (query.slug !== undefined) {
    conditions.push('(slug = ? OR vanity_slug = ?)');
    values.push(query.slug, query.slug);
  }
  const ascending = query.order === 'oldest' || query.order === 'least-scanned';
  const byScans = query.order === 'most-scanned' || query.order === 'least-scanned';
  const column = byScans ? 'scans' : 'created_at';
  const { after } = query;
  if (after) {
    const beyond = ascending ? '>' : '<';
    conditions.push(`(${column} ${beyond} ? OR (${column} = ? AND id ${beyond} ?))`);
    // The order says which kind of cursor this is (a whole code serves as either).
    const position = byScans ? (after as { scans: number }).scans : (after as { createdAt: Date }).createdAt.getTime();
    values.push(position, position, after.id);
  }
  const direction = ascending ? 'ASC' : 'DESC';
  values.push(query.limit);
  return {
    sql:
      `SELECT ${COLUMNS} FROM dynamic_codes WHERE ${conditions.join(' AND ')} ORDER BY ${column} ${direction}, ` +
      `id ${direction} LIMIT ?`,
    values,
  };
}

function toCode(row: CodeRow): DynamicCode {
  return {
    id: row.id,
    accountId: row.account_id,
    slug: row.slug,
    target: row.target,
    name: row.name,
    status: row.status,
    disabledReason: row.disabled_reason,
    routing: parseRouting(row.routing),
    vanity: vanityFrom(row.domain_id, row.vanity_host, row.vanity_slug),
    scans: row.scans,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** What the redirect reads of a code (no more: it runs on every scan). */
const SLUG_TARGET_COLUMNS = 'id, account_id, target, status, routing, deleted_at';
type SlugTargetRow = Pick<CodeRow, 'id' | 'account_id' | 'target' | 'status' | 'routing' | 'deleted_at'>;

/** A deleted code answers `deleted` (its slug is never reused). */
function toSlugTarget(row: SlugTargetRow): SlugTarget {
  const state = row.deleted_at === null ? row.status : 'deleted';
  return { codeId: row.id, accountId: row.account_id, target: row.target, state, routing: parseRouting(row.routing) };
}

function parseRouting(json: string | null): CodeRouting {
  return routingFrom(json === null ? null : (JSON.parse(json) as Partial<CodeRouting>));
}

/** Only what differs from no routing is stored (null when nothing does), so plain codes stay as they were. */
function routingJson(routing: CodeRouting): string | null {
  const set = Object.entries(routing).filter(
    ([field, value]) => JSON.stringify(value) !== JSON.stringify(NO_ROUTING[field as keyof CodeRouting]),
  );
  return set.length === 0 ? null : JSON.stringify(Object.fromEntries(set));
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export class SqliteDynamicCodeStore implements port.DynamicCodeStore {
  readonly #db: SqliteDatabase;
  readonly #count;
  readonly #insert;
  readonly #firstPage;
  readonly #nextPage;
  readonly #get;
  readonly #update;
  readonly #remove;
  readonly #bySlug;
  readonly #byVanity;
  readonly #onDomain;
  readonly #setVanity;
  readonly #disable;

  /** One prepared statement per combination of conditions (a few dozen at most). */
  readonly #filtered = new Map<string, Statement<unknown[], CodeRow>>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#count = db.prepare<[string], { n: number }>(
      `SELECT count(*) AS n FROM dynamic_codes WHERE account_id = ? AND ${LIVE}`,
    );
    this.#insert = db.prepare<unknown[], CodeRow>(
      `INSERT INTO dynamic_codes (id, account_id, slug, target, name, status, routing, domain_id, vanity_host,
         vanity_slug, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    );
    this.#firstPage = db.prepare<[string, number], CodeRow>(
      `SELECT ${COLUMNS} FROM dynamic_codes WHERE account_id = ? AND ${LIVE} ORDER BY created_at DESC, id DESC LIMIT ?`,
    );
    this.#nextPage = db.prepare<[string, number, number, string, number], CodeRow>(
      `SELECT ${COLUMNS} FROM dynamic_codes
       WHERE account_id = ? AND ${LIVE} AND (created_at < ? OR (created_at = ? AND id < ?))
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    );
    this.#get = db.prepare<[string, string], CodeRow>(
      `SELECT ${COLUMNS} FROM dynamic_codes WHERE id = ? AND account_id = ? AND ${LIVE}`,
    );
    this.#update = db.prepare<[string, string | null, string, string | null, number, string, string], CodeRow>(
      `UPDATE dynamic_codes SET target = ?, name = ?, status = ?, routing = ?, updated_at = ? WHERE id = ? AND ` +
        `account_id = ? AND ${LIVE} AND status <> 'disabled' RETURNING ${COLUMNS}`,
    );
    this.#remove = db.prepare<[number, number, string, string], unknown>(
      `UPDATE dynamic_codes SET deleted_at = ?, updated_at = ?, domain_id = NULL, vanity_host = NULL, ` +
        `vanity_slug = NULL WHERE id = ? AND account_id = ? AND ${LIVE}`,
    );
    this.#bySlug = db.prepare<[string], SlugTargetRow>(
      `SELECT ${SLUG_TARGET_COLUMNS} FROM dynamic_codes WHERE slug = ?`,
    );
    this.#byVanity = db.prepare<[string, string], SlugTargetRow>(
      `SELECT ${SLUG_TARGET_COLUMNS} FROM dynamic_codes WHERE vanity_host = ? AND vanity_slug = ? AND ${LIVE}`,
    );
    this.#onDomain = db.prepare<[string], { n: number }>(
      `SELECT count(*) AS n FROM dynamic_codes WHERE domain_id = ? AND ${LIVE}`,
    );
    this.#setVanity = db.prepare<[string | null, string | null, string | null, string, string], unknown>(
      `UPDATE dynamic_codes SET domain_id = ?, vanity_host = ?, vanity_slug = ? WHERE id = ? AND account_id = ?`,
    );
    this.#disable = db.prepare<[string, number, string], CodeRow>(
      `UPDATE dynamic_codes SET status = 'disabled', disabled_reason = ?, updated_at = ? WHERE slug = ? ` +
        `RETURNING ${COLUMNS}`,
    );
  }

  /**
   * One new code's row (createWithinLimit and createManyWithinLimit both insert through here, inside their
   * transaction).
   */
  #insertRow(input: port.NewDynamicCode): DynamicCode {
    const at = input.createdAt.getTime();
    const vanity = input.vanity;
    return toCode(
      this.#insert.get(
        newId('dyn'),
        input.accountId,
        input.slug,
        input.target,
        input.name,
        routingJson(input.routing),
        vanity?.domainId ?? null,
        vanity?.hostname ?? null,
        vanity?.slug ?? null,
        at,
        at,
      )!,
    );
  }

  async createWithinLimit(input: port.NewDynamicCode, maxCodes: number): Promise<port.CodeCreation> {
    // IMMEDIATE takes the write lock before counting, so two processes cannot both see room for one more code.
    const create = this.#db.transaction((): port.CodeCreation => {
      if (this.#count.get(input.accountId)!.n >= maxCodes) return 'limit_reached';
      const vanity = input.vanity;
      if (vanity && this.#byVanity.get(vanity.hostname, vanity.slug)) return 'vanity_taken';
      try {
        return this.#insertRow(input);
      } catch (error) {
        if (isUniqueViolation(error)) return 'slug_taken';
        throw error;
      }
    });
    return create.immediate();
  }

  async createManyWithinLimit(inputs: readonly port.NewDynamicCode[], maxCodes: number): Promise<port.CodesCreation> {
    if (inputs.length === 0) return [];
    const accountId = inputs[0]!.accountId;
    // One IMMEDIATE transaction: the count and every insert, or (a taken slug throws out of it) nothing.
    const create = this.#db.transaction((): DynamicCode[] | 'limit_reached' => {
      if (this.#count.get(accountId)!.n + inputs.length > maxCodes) return 'limit_reached';
      return inputs.map((input) => this.#insertRow({ ...input, accountId }));
    });
    try {
      return create.immediate();
    } catch (error) {
      if (isUniqueViolation(error)) return 'slug_taken';
      throw error;
    }
  }

  async list(accountId: string, query: port.CodeQuery): Promise<DynamicCode[]> {
    const { after, limit } = query;
    if (!isFiltered(query) && (after === undefined || 'createdAt' in after)) {
      const rows = after
        ? this.#nextPage.all(accountId, after.createdAt.getTime(), after.createdAt.getTime(), after.id, limit)
        : this.#firstPage.all(accountId, limit);
      return rows.map(toCode);
    }
    const { sql, values } = filteredList(query);
    let statement = this.#filtered.get(sql);
    if (!statement) this.#filtered.set(sql, (statement = this.#db.prepare<unknown[], CodeRow>(sql)));
    return statement.all(accountId, ...values).map(toCode);
  }

  async count(accountId: string): Promise<number> {
    return this.#count.get(accountId)!.n;
  }

  async get(accountId: string, id: string): Promise<DynamicCode | undefined> {
    const row = this.#get.get(id, accountId);
    return row && toCode(row);
  }

  async update(accountId: string, id: string, changes: port.CodeChanges, at: Date): Promise<port.CodeUpdate> {
    const apply = this.#db.transaction((): port.CodeUpdate => {
      const row = this.#get.get(id, accountId);
      if (!row) return undefined;
      if (row.status === 'disabled') return 'disabled';
      if (changes.vanity !== undefined && !this.#moveVanity(row, changes.vanity)) return 'vanity_taken';
      const name = changes.name === undefined ? row.name : changes.name;
      const routing = changes.routing ? routingJson({ ...parseRouting(row.routing), ...changes.routing }) : row.routing;
      const updated = this.#update.get(
        changes.target ?? row.target,
        name,
        changes.status ?? row.status,
        routing,
        at.getTime(),
        id,
        accountId,
      );
      return updated ? toCode(updated) : 'disabled';
    });
    return apply.immediate();
  }

  /** Inside update's transaction: false (nothing changed) when another live code holds the vanity slug. */
  #moveVanity(row: CodeRow, vanity: Vanity | null): boolean {
    if (vanity) {
      const holder = this.#byVanity.get(vanity.hostname, vanity.slug);
      if (holder && holder.id !== row.id) return false;
    }
    this.#setVanity.run(
      vanity?.domainId ?? null,
      vanity?.hostname ?? null,
      vanity?.slug ?? null,
      row.id,
      row.account_id,
    );
    return true;
  }

  async remove(accountId: string, id: string, at: Date): Promise<boolean> {
    return this.#remove.run(at.getTime(), at.getTime(), id, accountId).changes === 1;
  }

  async findBySlug(slug: string): Promise<SlugTarget | undefined> {
    const row = this.#bySlug.get(slug);
    return row && toSlugTarget(row);
  }

  async findByVanity(hostname: string, slug: string): Promise<SlugTarget | undefined> {
    const row = this.#byVanity.get(hostname, slug);
    return row && toSlugTarget(row);
  }

  async codesById(afterId: string | undefined, limit: number): Promise<Array<{ id: string; accountId: string }>> {
    return this.#db
      .prepare<[string, number], { id: string; account_id: string }>(
        'SELECT id, account_id FROM dynamic_codes WHERE id > ? ORDER BY id LIMIT ?',
      )
      .all(afterId ?? '', limit)
      .map((row) => ({ id: row.id, accountId: row.account_id }));
  }

  async countOnDomain(domainId: string): Promise<number> {
    return this.#onDomain.get(domainId)!.n;
  }

  async disableBySlug(slug: string, reason: string, at: Date): Promise<DynamicCode | undefined> {
    const row = this.#disable.get(reason, at.getTime(), slug);
    return row && toCode(row);
  }
}
