import type BetterSqlite3 from "better-sqlite3";

/**
 * Prepares each distinct statement text once on a SQLite connection and reuses it: the server
 * and its reader threads run the same few statements again and again, and preparing one cost
 * more than running it. The cache forgets everything past `capacity` texts.
 */
export function preparedStatements(database: BetterSqlite3.Database, capacity = 1000): (text: string) => BetterSqlite3.Statement {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return (text) => {
    let statement = statements.get(text);
    if (!statement) {
      statement = database.prepare(text);
      if (statements.size >= capacity) statements.clear();
      statements.set(text, statement);
    }
    return statement;
  };
}
