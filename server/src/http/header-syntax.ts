/** A header field name: an RFC 9110 token (what undici and Node's HTTP server accept as a name). */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
