/** The key the sandbox accepts when none is given (the demo's). A local test key, not a secret. */
export const SANDBOX_DEFAULT_API_KEY = 'sandbox-key';
