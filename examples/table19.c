/*
 * table19.c - the example PICL program of the format report (ORNL/TM-12125,
 * Table 19), verbatim apart from modern C: prototypes from picl.h, an int
 * main, casts of &x to char *, and close0's argument. Run on 8 processes
 * (piclrun -n 8 ./table19), processor 6 (numproc-2) saves its trace in the
 * file "trace"; its records are those of Table 20 (t/e2e/0600-*).
 *
 * The numbers in the comments are the report's line numbers.
 */
#include <picl.h>

int main(void)                                           /* (1) */
{                                                        /* (2) */
  int numproc,me,host;                                   /* (3) */
  double x;                                              /* (4) */
                                                         /* (5) */
  tracenode(10000,0,0);      /* enable tracing */        /* (6) */
  tracelevel(1,1,1);      /* set tracing levels */       /* (7) */
  traceevents(2,1,1,1,1); /* enable profiling of user events */ /* (8) */
  open0(&numproc,&me,&host); /* enable interprocessor communication */ /* (9) */
  if (me == numproc-2)                                   /* (10) */
    tracefiles("", "trace",0); /* specify where to save trace data */ /* (11) */
                                                         /* (12) */
  clocksync0();            /* synchronize processor clocks */ /* (13) */
  traceblockbegin(0,0,0); /* record beginning of user event */ /* (14) */
  if (me == 0){           /* broadcast time using native broadcast */ /* (15) */
    x = clock0();                                        /* (16) */
    send0((char *)&x,sizeof(double),0,-1);               /* (17) */
  }                                                      /* (18) */
  else recv0((char *)&x,sizeof(double),0);               /* (19) */
  traceblockend(0,0,0);   /* record end of user event */ /* (20) */
  tracedata(0,0,"double",1,&x); /* record data associated with user event */ /* (21) */
                                                         /* (22) */
  traceblockbegin(1,0,0); /* record beginning of user event */ /* (23) */
  if (me == 0){         /* broadcast time using ring algorithm */ /* (24) */
    x = clock0();                                        /* (25) */
    send0((char *)&x,sizeof(double),1,me+1);             /* (26) */
  }                                                      /* (27) */
  else{                                                  /* (28) */
    recv0((char *)&x,sizeof(double),1);                  /* (29) */
    if (me+1<numproc)                                    /* (30) */
      send0((char *)&x,sizeof(double),1,me+1);           /* (31) */
  };                                                     /* (32) */
  traceblockend(1,0,0); /* record end of user event */   /* (33) */
  tracedata(1,0,"double",1,&x); /* record data associated with user event */ /* (34) */
                                                         /* (35) */
  close0(0);              /* disable interprocessor communication */ /* (36) */
  return 0;
}                                                        /* (37) */
