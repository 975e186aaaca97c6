/**
 * A secret value the workerd tests store through the API: it may reach the provider it is
 * the key of and nothing else (no response, SSE frame, row or console line). Plain values
 * only, so both the Node-side teardown and the tests inside workerd import it.
 */
export const SECRET_VALUE_CANARY = "sk-test-secret-value-9876543210";

/** The tests' key-encryption key (base64 of 32 bytes), as `wrangler secret put SECRETS_KEK` sets it. */
export const TEST_SECRETS_KEK = "v1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
