#!/usr/bin/env python3
"""Writes experiment.toml: the rows of `flitsim reproduce self-tuned-congestion`.

    cd experiments/self-tuned-congestion && python3 rows.py

Rows name loads in the paper's packets/node/cycle; configs get flits/node/cycle (x16).
"""
rows=[]
def row(name, set_, metric, ref, source, compare="report", tol=0.0, rel=None, cfg="base.toml", div=None, seeds=None):
    r={'name':name,'config':cfg,'set':set_,'metric':metric,'reference':ref,'tolerance':tol,'compare':compare,'source':source}
    if seeds: r['seeds']=seeds
    if rel is not None: r['relative_to']=rel
    if div: r['divide_by']=div
    # A judged row beyond saturation (0.05 packets/node/cycle or more) is the mean of
    # seeds 1-3: single runs there move by up to 8% with the seed (README).
    if compare!="report" and not seeds and any(x.startswith('traffic.load=') and float(x.split('=')[1])>=0.8 for x in set_): r['seeds']=3
    rows.append(r)
ACC="stats.accepted.mean"; LAT="stats.packet_latency.mean"
loads=[0.01,0.02,0.03,0.04,0.05]
def S(dl, pol, load, pat=None, extra=()):
    s=[f'routing.deadlock="{dl}"', f'congestion.policy="{pol}"', f'traffic.load={round(load*16,4)}']
    if pat: s.append(f'traffic.pattern.type="{pat}"')
    return s+list(extra)
def section(t): rows.append(t)
# Section 5.2's second conclusion, judged beyond saturation for every pattern and scheme.
ALO_SRC="paper 5.2: our technique outperforms an alternative (ALO) that uses local estimates of congestion"
section("Figure 1: throughput collapse beyond saturation, adaptive routing with deadlock recovery, no congestion control")
for pat in ["uniform","bit_complement"]:
    for l in loads:
        row(f"Fig 1 {pat} load {l}: accepted", S("recovery","none",l,pat), ACC, None, "paper Fig. 1 (curve; no number in the text)")
row("Fig 1 uniform: accepted at 0.05 / at 0.02 (collapse)", S("recovery","none",0.05,"uniform"), ACC, 0.5, "paper Fig. 1: a dramatic drop beyond saturation", "at_most", 0.0, S("recovery","none",0.02,"uniform"))
row("Fig 1 complement: accepted at 0.05 / at 0.01 (collapse)", S("recovery","none",0.05,"bit_complement"), ACC, 0.5, "paper Fig. 1: both patterns collapse; complement saturates below 0.02", "at_most", 0.0, S("recovery","none",0.01,"bit_complement"))
section("Figure 4: Base, ALO and Tune vs offered load, uniform random; (a,b) recovery, (c,d) avoidance")
fig4_loads=[0.005,0.01,0.015,0.02,0.03,0.04,0.05]
peak={"recovery":0.02,"avoidance":0.015}
for dl in ["recovery","avoidance"]:
    for pol,name in [("none","Base"),("alo","ALO"),("tune","Tune")]:
        for l in fig4_loads:
            row(f"Fig 4 {dl} {name} load {l}: accepted", S(dl,pol,l), ACC, None, "paper Fig. 4 (curve)")
            row(f"Fig 4 {dl} {name} load {l}: latency (cycles)", S(dl,pol,l), LAT, None, "paper Fig. 4 (curve, log scale)")
    p=peak[dl]
    row(f"Fig 4 {dl}: Base accepted at 0.05 / at {p} (its peak)", S(dl,"none",0.05), ACC, 0.6, "paper 5.2.1: sudden drop in throughput at saturation", "at_most", 0.0, S(dl,"none",p))
    row(f"Fig 4 {dl}: Tune at 0.05 / Base at {p} (near peak)", S(dl,"tune",0.05), ACC, 0.7, "paper 5.2.1: Tune maintains throughput close to the peak", "at_least", 0.0, S(dl,"none",p))
    row(f"Fig 4 {dl}: Tune / Base accepted at 0.05", S(dl,"tune",0.05), ACC, 1.5, "paper Fig. 4: Tune stable at high loads, Base collapses", "at_least", 0.0, S(dl,"none",0.05))
    row(f"Fig 4 {dl}: Tune / ALO accepted at 0.05", S(dl,"tune",0.05), ACC, 1.0, ALO_SRC, "at_least", 0.0, S(dl,"alo",0.05))
section("Figure 5: gather delay g = 32, 48, 96 (h = 2, 3, 6), linear extrapolation vs the last snapshot, load 0.05")
for dl in ["recovery","avoidance"]:
    for h in [2,3,6]:
        for est in ["extrapolate","last"]:
            row(f"Fig 5 {dl} g={16*h} {est}: accepted", S(dl,"tune",0.05,None,[f"congestion.hop_delay={h}", f'congestion.estimate="{est}"']), ACC, None, "paper Fig. 5 (curve): g = 96 degrades; extrapolation helps at g = 48")
    row(f"Fig 5 {dl}: g=96 / g=32 accepted (extrapolate)", S(dl,"tune",0.05,None,["congestion.hop_delay=6",'congestion.estimate="extrapolate"']), ACC, 1.0, "paper 5.2.2: a delay of 96 cycles degrades performance", "at_most", 0.02, S(dl,"tune",0.05,None,["congestion.hop_delay=2",'congestion.estimate="extrapolate"']))
section("Figure 6: static thresholds 50 and 250 vs Tune, deadlock recovery, uniform and complement")
for pat in ["uniform","bit_complement"]:
    for th in [50,250]:
        for l in [0.02,0.05]:
            row(f"Fig 6 {pat} static {th} load {l}: accepted", S("recovery","static",l,pat,[f"congestion.threshold={th}"]), ACC, None, "paper Fig. 6 (curve)")
    for l in [0.02,0.05]:
        row(f"Fig 6 {pat} Tune load {l}: accepted", S("recovery","tune",l,pat), ACC, None, "paper Fig. 6 (curve)")
row("Fig 6: static 50 / Tune, uniform, load 0.05", S("recovery","static",0.05,"uniform",["congestion.threshold=50"]), ACC, 1.0, "paper Fig. 6 (curve): Tune above the static threshold of 50, which over-throttles random traffic (5.2.3)", "at_most", 0.0, S("recovery","tune",0.05,"uniform"))
row("Fig 6: static 50 / static 250, uniform, load 0.05", S("recovery","static",0.05,"uniform",["congestion.threshold=50"]), ACC, 0.95, "paper 5.2.3: 250 works very well for random traffic, 50 over-throttles it", "at_most", 0.0, S("recovery","static",0.05,"uniform",["congestion.threshold=250"]))
row("Fig 6: static 250 / static 50, complement, load 0.05", S("recovery","static",0.05,"bit_complement",["congestion.threshold=250"]), ACC, 0.9, "paper 5.2.3: 250 cannot prevent saturation for complement; 50 works", "at_most", 0.0, S("recovery","static",0.05,"bit_complement",["congestion.threshold=50"]))
section("Figure 7: threshold over time, uniform, regeneration interval 10 cycles, avoidance, with and without local-maximum avoidance (trace: congestion.trace in the JSON)")
for lm in ["true","false"]:
    s=S("avoidance","tune",0.1,None,[f"congestion.local_max={lm}"])
    row(f"Fig 7 local_max={lm}: accepted", s, ACC, None, "paper Fig. 7b (curve)")
    row(f"Fig 7 local_max={lm}: final threshold", s, "congestion.threshold", None, "paper Fig. 7a (curve)")
F7=lambda lm: S("avoidance","tune",0.1,None,[f"congestion.local_max={lm}"])
row("Fig 7: accepted with / without local-maximum avoidance", F7("true"), ACC, 1.0, "paper 5.2.4: with it 'we avoid saturation and sustain higher throughput'", "at_least", 0.0, F7("false"))
section("Figure 9: bursty load (Figure 8), average packet latency")
for dl,refs in [("recovery",(2838,2571,161)),("avoidance",(520,509,163))]:
    for (pol,name),ref in zip([("none","Base"),("alo","ALO"),("tune","Tune")],refs):
        # Magnitude within 25%: the bursts' length is read from Fig. 9's timeline, not given
        # (500 cycles either way moves Base and ALO by 12-15%), and single runs under
        # recovery spread by +-20% with the seed, hence five seeds (README).
        row(f"Fig 9 {dl} {name}: average latency (cycles)", [f'routing.deadlock="{dl}"', f'congestion.policy="{pol}"'], LAT, ref, "paper 5.2.4", "within", 0.25*ref, cfg="bursty.toml", seeds=5)
    row(f"Fig 9 {dl}: ALO / Tune latency", [f'routing.deadlock="{dl}"','congestion.policy="alo"'], LAT, 1.5, f"paper 5.2.4: {refs[1]}/{refs[2]} = {refs[1]/refs[2]:.1f}", "at_least", 0.0, [f'routing.deadlock="{dl}"','congestion.policy="tune"'], cfg="bursty.toml")
    row(f"Fig 9 {dl}: Tune / Base latency", [f'routing.deadlock="{dl}"','congestion.policy="tune"'], LAT, 0.5, f"paper 5.2.4: {refs[2]}/{refs[0]} = {refs[2]/refs[0]:.3f}", "at_most", 0.0, [f'routing.deadlock="{dl}"','congestion.policy="none"'], cfg="bursty.toml")

section("Figure 11: metapacket gather times vs data load (deadlock recovery, uniform; metapackets gathered, no throttling)")
META=['congestion.distribution="metapackets"']
meta_loads=[0.005,0.01,0.015,0.02,0.03,0.05]
for l in meta_loads:
    for stat in ["min","mean","max"]:
        row(f"Fig 11 load {l}: {stat} gather time (cycles)", S("recovery","none",l,None,META), f"metapackets.gather_{stat}", None, "paper Fig. 11 (curve): averages between 130 and 160")
row("Fig 11: mean gather time at 0.015 (cycles)", S("recovery","none",0.015,None,META), "metapackets.gather_mean", 145, "paper 5.3.2: on average between 130 and 160 cycles", "within", 15)
row("Fig 11: max gather time at 0.015 (cycles)", S("recovery","none",0.015,None,META), "metapackets.gather_max", 300, "paper 5.3.2: maximum gather times do not exceed 300 cycles", "at_most", 0.0)
row("Fig 11: mean gather time beyond saturation / near it (0.05 vs 0.015)", S("recovery","none",0.05,None,META), "metapackets.gather_mean", 1.0, "paper 5.3.2: gather times drop beyond saturation loads", "at_most", 0.0, S("recovery","none",0.015,None,META))
section("Figure 12: Base, No tune (metapackets gathered, not used) and Tune on metapacket estimates; deadlock recovery, uniform")
for l in [0.01,0.015,0.02,0.03,0.05]:
    row(f"Fig 12 Base load {l}: accepted", S("recovery","none",l), ACC, None, "paper Fig. 12 (curve)")
    row(f"Fig 12 No tune load {l}: accepted", S("recovery","none",l,None,META), ACC, None, "paper Fig. 12 (curve)")
    row(f"Fig 12 Tune (metapackets) load {l}: accepted", S("recovery","tune",l,None,META), ACC, None, "paper Fig. 12 (curve)")
row("Fig 12: No tune / Base latency at 0.015", S("recovery","none",0.015,None,META), LAT, 1.0, "paper 5.3.2: distributing metapackets causes saturation at lighter loads", "at_least", 0.0, S("recovery","none",0.015))
row("Fig 12: Tune (metapackets) / No tune accepted at 0.015", S("recovery","tune",0.015,None,META), ACC, 1.0, "paper 5.3.2: Tune on metapacket estimates further exacerbates it (stale information)", "at_most", 0.0, S("recovery","none",0.015,None,META))
row("Fig 12: Tune (metapackets) / Tune (side-band) accepted at 0.05", S("recovery","tune",0.05,None,META), ACC, 1.0, "paper 5.3: metapackets are not suitable for the scheme; the side-band is", "at_most", 0.0, S("recovery","tune",0.05))
section("Figures 13-15: Base, ALO and Tune for bit reversal, perfect shuffle and complement; (a,b) recovery, (c,d) avoidance")
for fig,pat in [(13,"bit_reverse"),(14,"shuffle"),(15,"bit_complement")]:
    for dl in ["recovery","avoidance"]:
        for pol,name in [("none","Base"),("alo","ALO"),("tune","Tune")]:
            for l in [0.01,0.03,0.05]:
                row(f"Fig {fig} {pat} {dl} {name} load {l}: accepted", S(dl,pol,l,pat), ACC, None, f"paper Fig. {fig} (curve)")
                row(f"Fig {fig} {pat} {dl} {name} load {l}: latency (cycles)", S(dl,pol,l,pat), LAT, None, f"paper Fig. {fig} (curve, log scale)")
        row(f"Fig {fig} {pat} {dl}: Tune / Base accepted at 0.05", S(dl,"tune",0.05,pat), ACC, 1.0, f"paper 5.2.5: Tune outperforms the base beyond saturation for every pattern", "at_least", 0.0, S(dl,"none",0.05,pat))
        row(f"Fig {fig} {pat} {dl}: Tune / ALO accepted at 0.05", S(dl,"tune",0.05,pat), ACC, 1.0, ALO_SRC, "at_least", 0.0, S(dl,"alo",0.05,pat))

# Curves printed under a row (a path in the report, and the paper's curve in words).
F7A, F7B, TL = "congestion.trace.threshold", "congestion.trace.throughput", "stats.timeline.accepted"
SERIES = {
    "Fig 7 local_max=true: accepted": (F7B, "Fig. 7b dashed line: throughput sustained higher (no creep into saturation)"),
    "Fig 7 local_max=true: final threshold": (F7A, "Fig. 7a dashed line: a sharp dip at about 26,000 cycles (the reset to the remembered maximum), then below saturation"),
    "Fig 7 local_max=false: accepted": (F7B, "Fig. 7b solid line: a gradual drop in throughput from about 26,000 cycles, into saturation"),
    "Fig 7 local_max=false: final threshold": (F7A, "Fig. 7a solid line: many decrements, yet an overall rise in the threshold that saturates the network"),
    "Fig 9 recovery Base: average latency (cycles)": (TL, "Fig. 9a Base: ramps up in each burst, then collapses in deep saturation; small bursts of throughput long after the burst (about 20,000-29,000 cycles) as deadlocks drain through the escape bandwidth"),
    "Fig 9 recovery ALO: average latency (cycles)": (TL, "Fig. 9a ALO: like Base, ramps up, collapses, and drains in late spurts"),
    "Fig 9 recovery Tune: average latency (cycles)": (TL, "Fig. 9a Tune: sustained throughput in every high-load phase, predictable latency"),
    "Fig 9 avoidance Base: average latency (cycles)": (TL, "Fig. 9b Base: ramps up in each burst, then collapses with saturation"),
    "Fig 9 avoidance ALO: average latency (cycles)": (TL, "Fig. 9b ALO: ramps up in each burst, then collapses with saturation"),
    "Fig 9 avoidance Tune: average latency (cycles)": (TL, "Fig. 9b Tune: sustained throughput in every high-load phase"),
}

def q(x):
    if isinstance(x,str): return '"'+x.replace('\\','\\\\').replace('"','\\"')+'"'
    if isinstance(x,list): return "["+", ".join("'"+v+"'" for v in x)+"]"
    return repr(x)
lines=['title = "Global-knowledge self-tuned congestion control (Thottethodi, Lebeck & Mukherjee, IEEE TPDS 2004)"',
'description = """','A 16-ary 2-cube, minimal adaptive wormhole routing with Disha deadlock recovery or Duato','avoidance, 16-flit packets, 60,000 cycles with the first 10,000 ignored. Loads are given in','the paper\'s packets/node/cycle. Curves are printed beside the paper\'s (which gives them only','as figures); judged rows test the paper\'s stated findings. See README.md.','"""','']
for r in rows:
    if isinstance(r,str):
        lines.append(f"# ---- {r} ----\n"); continue
    lines.append("[[row]]")
    if r['name'] in SERIES: r['series'], r['series_reference'] = SERIES[r['name']]
    for k in ['name','config','set','seeds','metric','divide_by','relative_to','reference','tolerance','compare','source','series','series_reference']:
        if k in r and not (k=="reference" and r[k] is None) and not (k=="tolerance" and r.get("compare")=="report"): lines.append(f"{k} = {q(r[k])}")
    lines.append("")
open("experiment.toml","w").write("\n".join(lines))
print(len([r for r in rows if not isinstance(r,str)]))
