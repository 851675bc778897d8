"""One module per technique. Each defines TITLE (as on its page), ORDER (nav order) and
run(session: bench.core.Session), which calls session.time()/session.record() with one
baseline row per group."""
