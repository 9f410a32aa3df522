export SOLBOOK_GIT_SHA=$(cat .carry/GIT_SHA) SOLBOOK_GIT_DIRTY=$(cat .carry/GIT_DIRTY) LD_LIBRARY_PATH=$PWD/.carry/lib
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $OUT/smi.csv &
smi=$!
mark() { echo "$(date +%H:%M:%S.%N | cut -c1-12) $*" >> $OUT/marks.txt; }
for i in 1 2 3; do
  mark new-start; .carry/bin/solbench gemm --spec --provider cublas --out $OUT/new-$i.json >/dev/null 2>&1; mark new-end
  mark torch-start; python3 bench/scripts/torch_gemm.py --spec --solbench .carry/bin/solbench --out $OUT/torch-$i.json >/dev/null 2>&1; mark torch-end
  mark base-start; .carry/bin/solbench-base gemm --spec --provider cublas --out $OUT/base-$i.json >/dev/null 2>&1; mark base-end
done
kill $smi
python3 - <<'PY' > $OUT/prof.txt 2>&1
import torch
A=torch.rand(4096,4096,device='cuda',dtype=torch.float16)*2-1; B=torch.rand(4096,4096,device='cuda',dtype=torch.float16)*2-1
C=torch.empty(4096,4096,device='cuda',dtype=torch.float16)
for _ in range(3): torch.matmul(A,B,out=C)
torch.cuda.synchronize()
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
    for _ in range(3): torch.matmul(A,B,out=C)
    torch.cuda.synchronize()
print(p.key_averages().table(row_limit=5))
PY
python3 - $OUT <<'PY'
import json,sys,statistics as st
o=sys.argv[1]
for i in (1,2,3):
  for k in ('new','torch','base'):
    try: d=json.load(open(f'{o}/{k}-{i}.json'))
    except Exception as e: print(k,i,e); continue
    t=d['timing']; S=t['samples']
    print(k,i,'med %.4f sp %.2f%%'%(t['stats']['median'],100*t['stats']['repeat_median_rel_spread']),' '.join('%.4f'%st.median(s) for s in S),[c.get('sm_mhz') for c in t.get('repeat_clocks',[])][:1], d['protocol'].get('settle_launches'))
PY
grep -E 'nvjet|Name|sm90|gemm' $OUT/prof.txt | head -5
