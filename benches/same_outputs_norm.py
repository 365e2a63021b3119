#!/usr/bin/env python3
"""What differs by nature between two runs, normalised (benches/same-outputs.sh):
ports, timings, dates, and the count of limit answers a rate-limited server gives."""
import re, sys
t = sys.stdin.read()
t = re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', t)
t = re.sub(r'localhost:\d+', 'localhost:PORT', t)
t = re.sub(r'\d+(\.\d+)?( ?)(ms|µs|s)\b', r'N\2\3', t)
t = re.sub(r'"(took_ms|median_ms|p95_ms|max_ms|min_ms|ms|elapsed_ms|duration_ms|took|latency_ms|mean_ms|p50_ms|p99_ms)": ?[\d.]+', r'"\1": N', t)
t = re.sub(r'(time|duration|elapsed)="[\d.]+"', r'\1="N"', t)
t = re.sub(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?', 'TIMESTAMP', t)
# How many answers a rate-limited server limits depends on timing (the old
# build against itself differs): counted, not compared.
t = re.sub(r'\b\d+ limit answers?\b', 'N limit answers', t)
t = re.sub(r'\b\d+ re-sent\b', 'N re-sent', t)
t = re.sub(r'"(limited|retried)": ?\d+', r'"\1": N', t)
sys.stdout.write(t)
