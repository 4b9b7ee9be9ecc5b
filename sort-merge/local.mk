# sort-merge/: picltrace sort, merge (and sync: clock correction).
