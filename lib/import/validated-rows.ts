import type { RecordKind } from "@/lib/domain/fields";
import { CsvSyntaxError, csvRecords } from "./csv-records";
import { checkHeader, type Problem, rowValidator, type RowValues } from "./validate";

/**
 * A file's records as the import takes them: each valid row's values, or the problems of a row,
 * in file order and in batches. The header, the cell count and every cell are checked here; a
 * CSV syntax error ends the file with a problem at its line.
 */
export type Checked = { values: RowValues } | { problems: Problem[] };

const BATCH = 500;

export async function* validatedRows(file: string, kind: RecordKind): AsyncGenerator<Checked[]> {
  const validator = rowValidator(kind);
  let positions: number[] | undefined;
  let width = 0;
  let batch: Checked[] = [];
  try {
    for await (const { cells, line } of csvRecords(file)) {
      if (!positions) {
        const header = checkHeader(cells, validator.columns, line);
        if ("problems" in header) {
          yield [...batch, { problems: header.problems }];
          return;
        }
        positions = header.positions;
        width = cells.length;
        continue;
      }
      if (cells.length !== width) {
        batch.push({ problems: [{ line, field: "row", message: `has ${cells.length} cells; the header has ${width}` }] });
      } else {
        const cellsInOrder = positions.map((p) => cells[p]);
        batch.push(validator.validate(cellsInOrder, line));
      }
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    batch.push({ problems: [{ line: err.line, field: "csv", message: err.message }] });
  }
  if (!positions && batch.length === 0) batch.push({ problems: [{ line: 1, field: "header", message: "the file is empty; a header row is required" }] });
  if (batch.length) yield batch;
}
