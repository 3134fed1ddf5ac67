/**
 * The service's two OAuth protected resources (RFC 9728, RFC 8707): the API (every route but
 * /mcp), named by PUBLIC_URL, and MCP, named `PUBLIC_URL/mcp`. A token is good on the resource its
 * audience names, and on no other.
 */
export type ResourceName = 'api' | 'mcp';

/** Where a resource's metadata is served, after the origin (RFC 9728 §3.1: suffix, then path). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The resource's identifier: what its tokens' `aud` names. */
export function resourceUrl(publicUrl: string, resource: ResourceName): string {
  return resource === 'mcp' ? `${publicUrl}/mcp` : publicUrl;
}

/** The URL of the resource's metadata document. */
export function resourceMetadataUrl(publicUrl: string, resource: ResourceName): string {
  return `${publicUrl}${RESOURCE_METADATA_PATH}${resource === 'mcp' ? '/mcp' : ''}`;
}
