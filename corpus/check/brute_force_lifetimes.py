#!/usr/bin/env python3
"""Brute-force check of the corpus targets (optional developer aid, not run
by `cargo test`; needs python3 only).

For the seed-001 kernels, the dynprog variants and the tiled blur, this
script replays each kernel's loop nest (re-written here by hand from the C
files, same bounds and subscripts), records every access, and computes per
temporary array, for the concrete sizes of the corpus:
  - cell lifetimes: first write to last access, read or write (DESIGN.md
    level 1, "sound"), or seed 001's first write to last read ("bee");
    a cell read before any write is live from the start;
  - max-live (the most cells live at once), DS, the successive-modulo size,
  - for 2-d arrays, the optimal lattice (smallest determinant strictly
    admissible lattice, by enumerating Hermite normal forms);
  - whether given mappings are admissible (e.g. dynprog_split's j mod 8).
It also recomputes mot_detect's printed result independently.
Expected (see corpus/README.md): durbin y max-live 148, successive modulo
200, optimal 197; reg_detect sum_t/mean 21/36/27, diff 1344/2304;
dynprog c 44 and optimal 61; gauss g_tmp 2400; mot_detect Delta DS = {0};
blur per tile 3B-2 = 22. Runs in about 3 minutes (mot_detect's 68121
cells dominate).
"""
import sys
INF = float('inf')
class Trace:
    def __init__(self): self.ops=[]
    def op(self, write, *reads): self.ops.append((write, reads))
def lifetimes(tr, array, model='sound', liveout=()):
    B={}; E={}; readseen={}
    for n,(w,reads) in enumerate(tr.ops):
        tr_=2*n; tw=2*n+1
        for (a,idx) in reads:
            if a!=array: continue
            if idx not in B: B[idx]=-1  # live-in
            E[idx]=tr_
            readseen[idx]=True
        if w and w[0]==array:
            idx=w[1]
            if idx not in B: B[idx]=tw
            if model=='sound': E[idx]=max(E.get(idx,tw),tw)
    for c in liveout:
        E[c]=INF
    if model=='bee':
        # first write / last read; never-read cells have no lifetime
        cells={c:(B[c],E[c]) for c in B if c in E}
    else:
        cells={c:(B[c],E[c]) for c in B}
    return cells
def maxlive(cells):
    ts=sorted(set(b for b,e in cells.values()))
    best=0
    for t in ts:
        cnt=sum(1 for (b,e) in cells.values() if (b<=t<e) or b==t)
        best=max(best,cnt)
    return best
def ds(cells):
    items=list(cells.items())
    # sort by B for pruning
    items.sort(key=lambda x:x[1][0])
    D=set()
    for x in range(len(items)):
        c,(b,e)=items[x]
        for y in range(x+1,len(items)):
            c2,(b2,e2)=items[y]
            if b2>=e: break
            # b<=b2<e ; need b2<e (yes) and b<e2
            if b<e2 and c!=c2:
                d=tuple(p-q for p,q in zip(c,c2)); D.add(d); D.add(tuple(-v for v in d))
    D.add(tuple(0 for _ in items[0][0]))
    return D
def succmod(D):
    n=len(next(iter(D))); size=1; mods=[]
    for p in range(n):
        m=max([d[p] for d in D if all(d[q]==0 for q in range(p))]+[0])
        mods.append(m+1); size*=m+1
    return size,mods
def opt2d(D, lo=1, hi=100000):
    Dn=[d for d in D if d!=(0,0)]
    for det in range(lo,hi):
        for a in range(1,det+1):
            if det%a: continue
            dd=det//a
            for b in range(a):
                ok=True
                for (v1,v2) in Dn:
                    if v2%dd==0:
                        y=v2//dd
                        if (v1-y*b)%a==0: ok=False;break
                if ok: return det,(a,0),(b,dd)
def report(name, cells, twod=False, optimal=False):
    ml=maxlive(cells); D=ds(cells); sm=succmod(D)
    s=f"{name}: cells {len(cells)} maxlive {ml} |DS| {len(D)} succmod {sm}"
    if D=={tuple(0 for _ in next(iter(D)))}: s+=" DS={0}"
    if optimal:
        s+=f" optimal {opt2d(D, lo=ml)}"
    print(s); sys.stdout.flush()
    return D

# ---- seed 001 kernels and dynprog variants
# durbin
N=100
tr=Trace()
tr.op(('y',(0,0)),('r',(0,)))
tr.op(('beta',(0,)))
tr.op(('alpha',(0,)),('r',(0,)))
for k in range(1,N):
    tr.op(('beta',(k,)),('beta',(k-1,)),('alpha',(k-1,)),('alpha',(k-1,)),('beta',(k-1,)))
    tr.op(('sum',(0,k)),('r',(k,)))
    for i in range(k): tr.op(('sum',(i+1,k)),('sum',(i,k)),('r',(k-i-1,)),('y',(i,k-1)))
    tr.op(('alpha',(k,)),('sum',(k,k)),('beta',(k,)))
    for i in range(k): tr.op(('y',(i,k)),('y',(i,k-1)),('alpha',(k,)),('y',(k-i-1,k-1)))
    tr.op(('y',(k,k)),('alpha',(k,)))
for i in range(N): tr.op(('out',(i,)),('y',(i,N-1)))
for a in ['alpha','beta','sum']: report('durbin '+a, lifetimes(tr,a))
report('durbin y', lifetimes(tr,'y'), optimal=True)
report('durbin y (bee)', lifetimes(tr,'y',model='bee'), optimal=True)
# reg_detect
N=6;P=64
tr=Trace()
for j in range(N):
    tr.op(('sum_t',(j,j)),('tangent',((N+1)*j,)))
    for i in range(j+1,N): tr.op(('sum_t',(j,i)),('sum_t',(j,i-1)),('tangent',(i+N*j,)))
for j in range(N):
    for i in range(j,N):
        for k in range(P): tr.op(('diff',(j,i,k)),('sum_t',(j,i)))
for j in range(N):
    for i in range(j,N):
        tr.op(('sum_d',(j,i,0)),('diff',(j,i,0)))
        for k in range(1,P): tr.op(('sum_d',(j,i,k)),('sum_d',(j,i,k-1)),('diff',(j,i,k)))
        tr.op(('mean',(j,i)),('sum_d',(j,i,P-1)))
for j in range(N):
    for i in range(j,N):
        if j>0: tr.op(('path',(j,i)),('path',(j-1,i-1)),('mean',(j,i)))
        else: tr.op(('path',(j,i)),('mean',(j,i)))
report('reg sum_t', lifetimes(tr,'sum_t'), optimal=True)
report('reg mean', lifetimes(tr,'mean'), optimal=True)
report('reg sum_d', lifetimes(tr,'sum_d'))
Dd=report('reg diff', lifetimes(tr,'diff'))
# check paper's optimal diff mapping (i mod 3, i+j mod 9, k mod 64) on (j,i,k) array coords
def ok(D,f):
    z=f((0,0,0)) if len(next(iter(D)))==3 else f((0,0))
    return all(f(d)!=z for d in D if any(d))
print('diff (a mod 3, a+b mod 9, c mod 64) admissible:', ok(Dd, lambda d:(d[0]%3,(d[0]+d[1])%9,d[2]%64)))
# dynprog variants
N=10
def dyn(variant):
    tr=Trace()
    if variant=='init':
        for i in range(1,N-1):
            for j in range(i+1,N): tr.op(('c',(i,j)),('c0',(i,j)))
    for i in range(N-1):
        for j in range(i+1,N):
            tr.op(('sum_c',(i,j,i)))
            for k in range(i+1,j):
                other=('c_in',(k,j)) if variant=='split' else ('c',(k,j))
                tr.op(('sum_c',(i,j,k)),('sum_c',(i,j,k-1)),('c',(i,k)),other)
            tr.op(('c',(i,j)),('sum_c',(i,j,j-1)),('W',(i,j)))
        if variant in ('init','split'): tr.op(('rowsum',(i,)),('sum_c',(i,N-1,N-2)))
    tr.op(('out',(0,)),('c',(0,N-1)))
    return tr
tr=dyn('printed')
report('dynprog c (live-in from start, sound)', lifetimes(tr,'c'), optimal=True)
report('dynprog c (bee fw/lr)', lifetimes(tr,'c',model='bee'), optimal=True)
report('dynprog sum_c', lifetimes(tr,'sum_c'))
tr=dyn('init')
report('dynprog_init c (sound)', lifetimes(tr,'c'), optimal=True)
report('dynprog_init sum_c', lifetimes(tr,'sum_c'))
tr=dyn('split')
Ds=report('dynprog_split c (sound)', lifetimes(tr,'c'), optimal=True)
Db=report('dynprog_split c (bee fw/lr)', lifetimes(tr,'c',model='bee'), optimal=True)
report('dynprog_split sum_c', lifetimes(tr,'sum_c'))
print('split: j mod 8 admissible under bee:', ok(Db, lambda d:(d[1]%8,)), ' under sound:', ok(Ds, lambda d:(d[1]%8,)))
print('split: (i-j) mod 9 admissible under sound:', ok(Ds, lambda d:((d[0]-d[1])%9,)))

# ---- gauss, mot_detect, blur_tiled
def ok(D,f):
    z=f(tuple(0 for _ in next(iter(D))))
    return all(f(d)!=z for d in D if any(d))
# gauss
N=M=50;T=1
tr=Trace()
tr.op(('tot',(0,)))
for k in range(T-1,T+2): tr.op(('tot',(k+2-T,)),('tot',(k+1-T,)),('Gauss',(k-T+1,)))
for x in range(1,N-1):
    for y in range(M):
        tr.op(('g_acc1',(x,y,0)))
        for k in range(T-1,T+2): tr.op(('g_acc1',(x,y,k+2-T)),('g_acc1',(x,y,k+1-T)),('in',(x+k-T,y)),('Gauss',(k-T+1,)))
        tr.op(('g_tmp',(x,y)),('g_acc1',(x,y,3)),('tot',(3,)))
for x in range(1,N-1):
    for y in range(1,M-1):
        tr.op(('g_acc2',(x,y,0)))
        for k in range(T-1,T+2): tr.op(('g_acc2',(x,y,k+2-T)),('g_acc2',(x,y,k+1-T)),('g_tmp',(x,y+k-T)),('Gauss',(k-T+1,)))
        tr.op(('gauss_image',(x,y)),('g_acc2',(x,y,3)),('tot',(3,)))
for a in ['tot','g_acc1','g_acc2']: report('gauss '+a, lifetimes(tr,a))
c=lifetimes(tr,'g_tmp'); print('gauss g_tmp cells',len(c),'maxlive',maxlive(c))
# mot_detect
m=n=4;M=N=32
A=[[ (row*row*7+col*13+row*col*3)%61 for col in range(N+n+1)] for row in range(M+m+1)]
tr=Trace(); total=0
tr.op(('ODelta',(0,)))
for i in range(m,M+1):
    for j in range(n,N+1):
        tr.op(('Delta',(i-m,j-n,0)),('A',(i,j)),('A',(i-m,j-n)))
        for k in range(i-m,i+m+1):
            for l in range(j-n,j+n+1):
                total+=A[i][j]-A[k][l]
                if k>i-m or l>j-n:
                    w=(2*n+1)*k-(2*n+1)*i+l-j+(2*m*n+m+n)
                    assert 1<=w<=80
                    tr.op(('Delta',(i-m,j-n,w)),('A',(i,j)),('A',(k,l)),('Delta',(i-m,j-n,w-1)))
        wo=(N-n+1)*i+j-(m*N-m*n+m+n-1)
        tr.op(('ODelta',(wo,)),('Delta',(i-m,j-n,80)),('ODelta',(wo-1,)))
tr.op(('opt',(0,)),('ODelta',((M-m+1)*(N-n+1),)))
print('mot_detect opt (independent)', total)
for a in ['Delta','ODelta']: report('mot '+a, lifetimes(tr,a))
# blur
B=8;NT=4
tr=Trace()
for ty in range(NT):
 for tx in range(NT):
  for x in range(B):
    for y in range(B): tr.op(('blurx',(ty,tx,x,y)))
    for y in range(B):
        if y>=2: tr.op(('blury',(0,)),('blurx',(ty,tx,x,y-2)),('blurx',(ty,tx,x,y-1)),('blurx',(ty,tx,x,y)))
        if y==1 and ty>=1: tr.op(('blury',(0,)),('blurx',(ty-1,tx,x,B-1)),('blurx',(ty,tx,x,0)),('blurx',(ty,tx,x,1)))
        if y==0 and ty>=1: tr.op(('blury',(0,)),('blurx',(ty-1,tx,x,B-2)),('blurx',(ty-1,tx,x,B-1)),('blurx',(ty,tx,x,0)))
c=lifetimes(tr,'blurx')
D=report('blur blurx (all tiles)', c)
print('blur per-tile (ty,tx,(y-2x) mod 3B-2) admissible:', ok(D, lambda d:(d[0],d[1],(d[3]-2*d[2])%(3*B-2))))
print('blur per-tile (ty,tx,(y-2x) mod 3B-3) admissible:', ok(D, lambda d:(d[0],d[1],(d[3]-2*d[2])%(3*B-3))))
# per-tile max-live: restrict to cells of one tile, count only while that tile runs? compute maxlive of tile (1,1) cells
t11={k:v for k,v in c.items() if k[0]==1 and k[1]==1}
print('blur max-live of one tile\'s cells', maxlive(t11))
