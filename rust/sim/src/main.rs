//! The `rein-sim` command line: list scenarios, run one, or replay a SWIM trace or job histories.

use std::sync::Mutex;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{ArgGroup, Parser, Subcommand};

use rein_sim::scenario::{PolicySpec, Scenario};
use rein_sim::{explain, jhist, report, reproduce, run_scenario_parallel, scenarios, swim, Engine, Finished};

#[derive(Parser)]
#[command(name = "rein-sim", version, about = "Trace-driven simulator of rein's straggler policies")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the built-in scenarios, one name a line.
    List,
    /// Run a built-in scenario through its policies (or those given).
    Run {
        #[arg(long)]
        scenario: String,
        /// Comma-separated policy names or scenario labels, e.g. none,late,mantri.
        #[arg(long, value_delimiter = ',')]
        policies: Option<Vec<String>>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output directory (default target/sim/SCENARIO).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Ablation: iron out every runtime outlier (no outlier slowdowns, no contention windows).
        #[arg(long)]
        no_outliers: bool,
        /// Policies simulated side by side (default: the machine's cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Every EVALUATION.md experiment's headline number beside the paper's, in the paper's metric
    /// (the summary table of docs/REPRODUCTION.md).
    Reproduce {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the SCA/ESE trace experiments (minutes).
        #[arg(long)]
        quick: bool,
        /// Write the whole of docs/REPRODUCTION.md (every scenario's table, the SWIM replay, the
        /// simulator's speed) to this file instead of printing the summary.
        #[arg(long)]
        doc: Option<PathBuf>,
        /// The SWIM trace replayed in the document.
        #[arg(long, default_value = "../shared/traces/swim-fb2009-sample0.tsv")]
        trace: PathBuf,
        /// Policies simulated side by side (default: the machine's cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Replay a SWIM job trace (.tsv) or Hadoop job-history files (.jhist).
    #[command(group(ArgGroup::new("input").required(true).args(["trace", "history"])))]
    Replay {
        #[arg(long)]
        trace: Option<PathBuf>,
        /// A MapReduce job-history file; repeat for several jobs on one cluster.
        #[arg(long)]
        history: Vec<PathBuf>,
        #[arg(long, value_delimiter = ',', default_value = "none,hadoop,late,mantri,dolly")]
        policies: Vec<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: Option<PathBuf>,
        /// Machines. SWIM: two slots each, default 600 (the Facebook traces' cluster). Histories:
        /// default the NodeManagers seen; more or fewer repeat or drop them in name order.
        #[arg(long)]
        machines: Option<usize>,
        /// SWIM: replay the trace this many times back to back, each copy starting where the
        /// previous one's last job was submitted (`--repeat 4` of the 5,894-job sample is the
        /// ~24K-job scale test).
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// Policies simulated side by side (default: the machine's cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Explain a job: rein's decision log beside the job's history, as a timeline, the return on
    /// investment and (with --svg) a Gantt chart of attempts per node.
    Explain {
        /// The decision log (JSON lines) rein wrote for the job.
        #[arg(long)]
        log: PathBuf,
        /// The job's history file (.jhist).
        #[arg(long)]
        history: PathBuf,
        #[arg(long)]
        svg: Option<PathBuf>,
    },
}

/// A self-written progress bar on stderr, redrawn at most every 200 ms.
struct Bar {
    last: Mutex<Option<Instant>>,
}

impl Bar {
    fn draw(&self, label: &str, done: usize, total: usize) {
        let now = Instant::now();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if done != total && last.is_some_and(|t| now - t < Duration::from_millis(200)) {
            return;
        }
        *last = Some(now);
        let width = 30;
        let filled = (done * width).checked_div(total).unwrap_or(width);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{label:>20} [{}{}] {done}/{total} jobs", "#".repeat(filled), ".".repeat(width - filled));
        let _ = err.flush();
    }
}

fn execute(sc: &Scenario, only: Option<&[String]>, seed: u64, threads: usize, out: PathBuf) -> Result<(), String> {
    // Check every policy's configuration before spending time on simulation.
    let specs: Vec<PolicySpec> = match only {
        None => sc.policies.clone(),
        Some(names) => names
            .iter()
            .map(|n| sc.policies.iter().find(|p| &p.label == n).cloned().unwrap_or_else(|| PolicySpec::named(n)))
            .collect(),
    };
    for p in &specs {
        Engine::from_pairs(p.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(|e| format!("policy '{}': {e}", p.label))?;
    }
    let bar = Bar { last: Mutex::new(None) };
    let (results, job_seconds) = run_scenario_parallel(
        sc,
        only,
        seed,
        threads,
        &|label, done, total| bar.draw(label, done, total),
        &|f: Finished<'_>| {
            let s = f.summary;
            let secs = f.wall.as_secs_f64();
            eprintln!(
                "\r{:>20}: {} jobs, mean {:.1} s, p50 {:.1} s, container-s {:.0} | {:.2} s wall, {:.2}M events/s",
                f.label,
                s.jobs,
                s.mean_job_seconds,
                s.p50_job_seconds,
                s.container_seconds,
                secs,
                (s.sim_events + s.engine_events) as f64 / secs.max(1e-9) / 1e6
            );
            *bar.last.lock().unwrap_or_else(|e| e.into_inner()) = None;
        },
    );
    report::write_all(&out, &results, &job_seconds).map_err(|e| format!("{}: {e}", out.display()))?;
    print!("{}", report::markdown(&results));
    eprintln!("wrote {}", out.display());
    Ok(())
}

fn cores(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// rein's allocator (`rein_core::Allocator`): a big block starts on a huge-page boundary, and the
/// bytes held are counted.
#[global_allocator]
static ALLOCATOR: rein_core::Allocator = rein_core::Allocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List => {
            for name in scenarios::NAMES {
                println!("{name}");
            }
            Ok(())
        }
        Command::Run { scenario, policies, seed, out, no_outliers, threads } => match scenarios::build(&scenario, seed) {
            None => Err(format!("unknown scenario '{scenario}'; `rein-sim list` shows them")),
            Some(sc) => {
                let sc = if no_outliers { sc.without_outliers() } else { sc };
                let out = out.unwrap_or_else(|| PathBuf::from("target/sim").join(&sc.name));
                execute(&sc, policies.as_deref(), seed, cores(threads), out)
            }
        },
        Command::Reproduce { seed, quick, doc, trace, threads } => {
            let mut runs = reproduce::Runs::new(seed, cores(threads));
            match doc {
                Some(path) => {
                    let text = reproduce::document(&mut runs, quick, Some(&trace));
                    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display())).map(|()| eprintln!("wrote {}", path.display()))
                }
                None => {
                    let mut rows = reproduce::quick_from(&mut runs);
                    if !quick {
                        rows.extend(reproduce::trace_from(&mut runs));
                    }
                    print!("{}", reproduce::markdown(&rows));
                    Ok(())
                }
            }
        }
        Command::Explain { log, history, svg } => explain::read_log(&log).and_then(|records| {
            let h = jhist::read(&history)?;
            print!("{}", explain::text(&records, &h));
            if let Some(svg) = svg {
                std::fs::write(&svg, explain::svg(&records, &h)).map_err(|e| format!("{}: {e}", svg.display()))?;
                eprintln!("wrote {}", svg.display());
            }
            Ok(())
        }),
        Command::Replay { trace, history, policies, seed, out, machines, repeat, threads } => {
            let stem = |p: &PathBuf| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into());
            let pols: Vec<PolicySpec> = policies.iter().map(|p| PolicySpec::named(p)).collect();
            let sc = match trace {
                Some(trace) => swim::read(&trace).map(|jobs| {
                    let name = if repeat > 1 { format!("{}-x{repeat}", stem(&trace)) } else { stem(&trace) };
                    swim::scenario(&name, &swim::repeat(&jobs, repeat), machines.unwrap_or(600).max(1), seed, pols)
                }),
                None => history.iter().map(|p| jhist::read(p)).collect::<Result<Vec<_>, _>>().map(|hs| {
                    let name = match history.len() {
                        1 => stem(&history[0]),
                        n => format!("{}+{}", stem(&history[0]), n - 1),
                    };
                    jhist::scenario(&name, &hs, machines, pols)
                }),
            };
            sc.and_then(|sc| {
                let out = out.unwrap_or_else(|| PathBuf::from("target/sim").join(&sc.name));
                execute(&sc, None, seed, cores(threads), out)
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rein-sim: {e}");
            ExitCode::FAILURE
        }
    }
}
