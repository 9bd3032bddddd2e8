// Zod compiles a parser for each object schema with `new Function` the first time it parses one.
// That pays in a long-lived server; here most processes are short and parse each schema a few
// times, so compiling costs more than it saves. Imported first by the entry, before any schema
// is built (zod reads the setting when a schema is made).
import { z } from 'zod';

z.config({ jitless: true });
