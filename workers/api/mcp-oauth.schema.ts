import * as z from "zod";

/** Where an OAuth connection signs in and where its tokens come from, shown to the operator before authorising. */
export const McpAuthorizationServer = z
  .object({
    issuer: z.string().describe("The authorization server's issuer, as its metadata names it (RFC 8414)"),
    authorization_origin: z.string().describe("The origin of the page the operator signs in at (authorization_endpoint)"),
    token_origin: z.string().describe("The origin the platform takes tokens from (token_endpoint); shown apart when it differs from the sign-in page's"),
  })
  .meta({ id: "McpAuthorizationServer" });

/** Answer of `POST /api/mcp/connections/:id/authorize`: where to send the operator, with a state good once. */
export const McpAuthorization = z
  .object({
    authorization_url: z.url().describe("The authorization server's page, with PKCE S256 and a state signed for this organisation and connection"),
    redirect_uri: z
      .url()
      .describe(
        "Where the authorization server sends the operator back: the console's callback page, which posts code and state to POST /api/mcp/oauth/callback",
      ),
    expires_at: z.iso.datetime().describe("After this the state is refused (ten minutes)"),
    authorization_server: McpAuthorizationServer.describe(
      "Where the authorization URL signs in and where tokens come from: show it before sending the operator",
    ),
  })
  .meta({ id: "McpAuthorization" });

/** Body of `POST /api/mcp/oauth/callback`: what the authorization server's redirect carried. */
export const McpOAuthCallback = z
  .strictObject({
    code: z.string().min(1).max(2048).describe("The authorization code the redirect carries"),
    state: z
      .string()
      .min(1)
      .max(512)
      .describe("The state of the authorization URL, passed back by the redirect; good once, for ten minutes, for this organisation only"),
    iss: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .describe(
        "The issuer the redirect names (RFC 9207), when it names one: it must be the authorization server's; required when the server announces authorization_response_iss_parameter_supported",
      ),
  })
  .meta({ id: "McpOAuthCallback" });

/** Answer of the callback: the connection authorised, and what discovering its tools found. */
export const McpOAuthResult = z
  .object({
    connection_id: z.uuid(),
    status: z
      .enum(["pending", "ready", "needs_auth", "error"])
      .describe("'ready' once its tools were discovered; 'error' when the server could not be listed (last_error says why)"),
    last_error: z.string().nullable(),
    expires_at: z.iso.datetime().nullable().describe("When the access token expires, if the server said; it is refreshed a minute before"),
  })
  .meta({ id: "McpOAuthResult" });
