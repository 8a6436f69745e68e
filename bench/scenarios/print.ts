// Row f-pdf: POST /generate for a PDF at a physical size (unique content), on the shared embedded service beside row c
// (PNG).
import { GENERATE_PATH, measureRow, wanted, type BenchScenario } from '../harness.js';
import { rotatingKey } from '../load.js';

let sequence = 0;

/** A 30 mm PDF of a new code each request: pdfkit's document, our module runs, the page at the physical size. */
const pdfBody = () =>
  JSON.stringify({ content: `https://example.com/print/${++sequence}`, type: 'url', outputFormat: 'pdf', sizeMm: 30 });

export const printScenario: BenchScenario = {
  ids: ['f-pdf'],
  run: async (context) => {
    if (!wanted('f-pdf')) return {};
    const service = await context.embedded();
    return {
      rows: [
        await measureRow(
          'f-pdf',
          'ours, PDF 30 mm, unique content',
          service.server,
          GENERATE_PATH,
          rotatingKey(service.keys),
          pdfBody,
        ),
      ],
    };
  },
};
