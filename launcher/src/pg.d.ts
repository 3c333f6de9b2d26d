// `pg` ships no types and @types/pg is not a dependency; the launcher uses only Client (typed locally).
declare module 'pg';
