// The console's base path, apart from the routes table: the pages the table loads link to it too.
export const PANEL_BASE = '/panel';
export const PANEL_HOME = '/panel/dashboard';
