// Source messages of the user console screens; the other languages mirror these keys exactly.
export const userZhCN = {};
