// `kb mcp`: the MCP server on stdio (see cli/mcp/server.ts). Lazy-loaded: no other command pays for the SDK.
import { type GlobalOptions, withClient } from '../context.js';

export async function mcpCommand(g: GlobalOptions, version: string): Promise<number> {
  return withClient({ ...g, json: true }, async (kb) => {
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp(kb, version);
  });
}
