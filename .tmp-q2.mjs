import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
for (const sql of process.argv.slice(2)) {
  const r = await con.runAndReadAll(sql);
  console.log(r.columnNames().join('\t'));
  for (const row of r.getRowsJS()) console.log(row.map(v => typeof v === 'bigint' ? v.toString() : JSON.stringify(v)).join('\t'));
}
