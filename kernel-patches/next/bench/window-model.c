/* window-model.c: a userspace model, not a measurement, of
 * memory.promote_rate_max's windows as patch 19 has them
 * (memcg_promote_window(), memcg_promote_over(), the charge), HZ=250,
 * MEMCG_PROMOTE_WINDOWS=3.
 * Usage: window-model P HOT_PAGES BUDGET_PAGES IDLE_S.
 * Passes every P seconds, each offering up to the whole remaining hot set
 * 200 pages per jiffy within the first 0.2 s of the pass. Prints the
 * rate from 10% to 90% of the set as the bench computes it (t10 and t90
 * fall on pass times, so it is coarse) and the worst excess, over any
 * span of T seconds, above T (rounded up) + 3 windows' budget. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define HZ 250
#define W 3
static unsigned long start; static long nr; static long maxp;
static void roll(unsigned long now){ unsigned long win=(now-start)/HZ; long left;
  if(!win) return; start+=win*HZ; if(win>W) win=W;
  left=nr-(long)(win*maxp); if(left< -(long)((W-1)*maxp)) left=-(long)((W-1)*maxp); nr=left; }
static int over(unsigned long now){ roll(now); return nr>=maxp; }
static void charge(unsigned long now,long n){ roll(now); nr+=n; }
int main(int argc,char**argv){
  double P=atof(argv[1]); long hot=atol(argv[2]); maxp=atol(argv[3]); double idle=atof(argv[4]);
  unsigned long now=1000; start=now; nr=0; long done=0; unsigned long t=now+(unsigned long)(idle*HZ);
  unsigned long t10=0,t90=0; long v10=0,v90=0; double worst=0; /* bound check: max over windows of promoted in [a,a+T) - (T+3)*budget */
  static long log_[100000]; int nlog=0;
  while(done<hot && t<now+600*HZ){
    /* one pass: offer remaining pages, 200 per jiffy, for 0.2 s */
    long rem=hot-done; unsigned long j;
    for(j=0;j<HZ/5 && rem>0;j++){ long k; for(k=0;k<200 && rem>0;k++,rem--){ if(!over(t+j)){ charge(t+j,1); done++; log_[nlog++]=t+j; } } }
    if(!t10&&done>=hot/10){t10=t;v10=done;} if(!t90&&done>=hot*9/10){t90=t;v90=done;}
    t+=(unsigned long)(P*HZ);
  }
  /* bound: for every start a and length T, count promotions */
  for(int a=0;a<nlog;a++) for(int b=a;b<nlog;b++){ double T=(log_[b]-log_[a]+1)/(double)HZ; long c=b-a+1;
     double lim=(ceil(T)+W)*maxp; if(c-lim>worst) worst=c-lim; }
  printf("P=%.1f idle=%.0f: done %ld t10 %.1f t90 %.1f rate10-90 %.2f x budget, excess over (ceil(T)+%d)*budget: %.0f pages\n",
    P,idle,done,(t10-now)/(double)HZ,(t90-now)/(double)HZ,
    (t90>t10)?(v90-v10)/((t90-t10)/(double)HZ)/maxp:0, W, worst);
  return 0; }
