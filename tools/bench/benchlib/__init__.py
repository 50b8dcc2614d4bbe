"""Tutti benchmark harness: runs the workload apps natively and under Tutti, records, reports."""
