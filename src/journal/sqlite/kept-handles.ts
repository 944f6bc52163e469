// better-sqlite3 12's Database, Statement and StatementIterator are node::ObjectWrap objects. From Node
// 24.19 on, an ObjectWrap's destructor unregisters a cleanup hook from the current Node environment,
// and aborts the process when there is none: when V8 collects the object during a garbage collection
// it entered without a JavaScript context (an allocation from a built-in, a background task). So an
// object of these kinds that becomes garbage may abort the process at any later allocation; Node 20 and
// 22 only free it. better-sqlite3 13 has no ObjectWrap, but it needs Node 22.
// None of them becomes garbage here: a database's statements are prepared once per SQL text and kept
// with it, its iterators are kept with it, and every database opened is kept for the life of the process.
import type Database from 'better-sqlite3';

type Statement = Database.Statement<unknown[], unknown>;

const keptDatabases: Database.Database[] = [];

/**
 * Keeps `db`, and every statement and iterator made from it, reachable until the process ends.
 * `db.prepare(sql)` then hands out the statement it prepared for `sql` before (another one while that one
 * is iterating), with its output mode reset; statements are never bound (`bind()`) for good.
 */
export function keepHandles(db: Database.Database): Database.Database {
  keptDatabases.push(db);
  const prepareNew = db.prepare.bind(db) as (sql: string) => Statement;
  const statements = new Map<string, Statement[]>();
  const iterators: unknown[] = [];

  const keptIterating = (statement: Statement): Statement => {
    const iterate = statement.iterate;
    Object.defineProperty(statement, 'iterate', {
      value: (...params: unknown[]) => {
        const iterator = iterate.apply(statement, params);
        iterators.push(iterator);
        return iterator;
      },
    });
    return statement;
  };

  const prepare = (sql: string): Statement => {
    if (!db.open) return prepareNew(sql); // throws: the connection is closed
    let kept = statements.get(sql);
    if (kept === undefined) statements.set(sql, (kept = []));
    const idle = kept.find((statement) => !statement.busy);
    if (idle === undefined) {
      const statement = keptIterating(prepareNew(sql));
      kept.push(statement);
      return statement;
    }
    if (idle.reader) idle.pluck(false).raw(false).expand(false);
    return idle;
  };

  db.prepare = prepare as typeof db.prepare;
  // better-sqlite3's own pragma() prepares a new statement on each call.
  db.pragma = ((source: string, options?: Database.PragmaOptions) => {
    const statement = prepare(`PRAGMA ${source}`);
    if (!statement.reader) {
      statement.run();
      return options?.simple ? undefined : [];
    }
    return options?.simple ? statement.pluck().get() : statement.all();
  }) as typeof db.pragma;
  return db;
}
