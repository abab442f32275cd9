// Excel workbooks (.xlsx, .xlsm): one sheet at a time, rows cited by the numbers Excel shows
// (`#sheet=Budget&row=12-40`), the sheet's first row with values as the header repeated in every
// chunk. Cells are read as the text Excel displays; formulas give their cached result, never run,
// and macros are a binary part nothing here reads.
import ExcelJS from 'exceljs';
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc, BlockGroup, DocBlock } from './blocks.js';
import { openZip, type ZipLimits } from './zip.js';

function cellText(c: ExcelJS.Cell): string {
  try {
    return (c.text ?? '').replace(/\s+/g, ' ').trim();
  } catch {
    return ''; // a cell type exceljs cannot format
  }
}

export async function readXlsx(bytes: Uint8Array, limits: ZipLimits): Promise<BlockDoc> {
  // The guard runs first: exceljs inflates every part it reads.
  const zip = await openZip(bytes, limits, 'an Excel workbook');
  if (!zip.file('xl/workbook.xml')) throw new KbError('PARSE_FAILED', 'not an Excel workbook (no xl/workbook.xml inside)');
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  } catch (e) {
    throw new KbError('PARSE_FAILED', `could not read the workbook: ${(e as Error).message}`);
  }
  const blocks: DocBlock[] = [];
  const groups: BlockGroup[] = [];
  wb.eachSheet((ws) => {
    const g = groups.length;
    let header: string[] | null = null;
    ws.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = [];
      for (let i = 1; i <= row.cellCount; i++) cells.push(cellText(row.getCell(i)));
      while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
      if (cells.length === 0) return;
      if (!header) {
        header = cells;
        return;
      }
      blocks.push({ text: cells.join(' | '), html: '', unit: row.number, group: g });
    });
    groups.push({ name: ws.name, header: header ?? [] });
  });
  const tags = (wb.keywords ?? '')
    .split(/[,;]/)
    .map((t) => t.trim())
    .filter((t) => t && t.length <= 64);
  const created = wb.created instanceof Date && !Number.isNaN(wb.created.getTime()) ? wb.created.toISOString() : null;
  return { title: wb.title?.trim() || null, author: wb.creator?.trim() || null, date: created, tags, blocks, groups, cite: 'rows' };
}
