#!/usr/bin/env python3
"""Renders tests/lb/nginx.conf.template for tests/lb/run.sh and
tests/ledger/run.sh: the @...@ placeholders from the environment (PREFIX,
LISTEN, SERVERS, USER_DIRECTIVE).

Usage: render_nginx.py TEMPLATE OUT [--no-retry-posts]
  --no-retry-posts  do not send a failed POST to the next replica (the
                    ledger's 503 is the answer, not a replica failure)
"""
import os
import sys

template, out = sys.argv[1], sys.argv[2]
text = open(template).read()
for key, var in [("@PREFIX@", "PREFIX"), ("@LISTEN@", "LISTEN"),
                 ("@SERVERS@\n", "SERVERS"), ("@USER@", "USER_DIRECTIVE")]:
    text = text.replace(key, os.environ[var])
if "--no-retry-posts" in sys.argv[3:]:
    text = text.replace("proxy_next_upstream error timeout non_idempotent;",
                        "proxy_next_upstream error timeout;")
open(out, "w").write(text)
