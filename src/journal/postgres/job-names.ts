// The jobs a PostgreSQL journal holds, most recently changed first: a database whose schema is not there
// yet holds none.
import { connectPool } from './pool.js';

export async function jobNames(url: string): Promise<string[]> {
  const pool = await connectPool(url);
  try {
    const found = await pool.query<{ name: string }>('SELECT name FROM jobs ORDER BY updated_at DESC, name');
    return found.rows.map((row) => row.name);
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return []; // undefined_table: no journal here yet
    throw err;
  } finally {
    await pool.end().catch(() => {});
  }
}
