# stats/: picltrace stat (profiles) and plot (gnuplot output).
