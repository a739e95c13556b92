"""Files shipped with Referee that are not code: the LIRIS XML schema (SPEC §10)."""
