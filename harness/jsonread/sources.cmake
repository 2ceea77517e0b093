# jsonread/: reading JSON from outside (headers only): a bound on nesting, members with fallbacks,
# checked whole numbers, the schema version. Every module that reads JSON reads it through these.
