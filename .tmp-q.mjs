import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const D = '/work/main/fixtures/finance/v6/data';
for (const sql of process.argv.slice(2)) {
  const r = await con.runAndReadAll(sql.replaceAll('$L', `read_parquet('${D}/long/*/*.parquet', hive_partitioning=false)`).replaceAll('$D', D));
  console.log(r.columnNames().join('\t'));
  for (const row of r.getRowsJS()) console.log(row.map(v => typeof v === 'bigint' ? v.toString() : JSON.stringify(v)).join('\t'));
}
