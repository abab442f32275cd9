// What zod found wrong, as one line kb can put in an error message: `top: Too big…; mode: Invalid…`.
// (z.prettifyError writes one issue per line with symbols; kb's errors are one line, in JSON too.)
import type { z } from 'zod';

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || 'params'}: ${i.message}`).join('; ');
}
