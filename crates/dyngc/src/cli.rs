//! Command-line syntax (clap derive).

use clap::{Args, Parser, Subcommand, ValueEnum};
use dyngc_compiler::{Options, ScheduleChoice, DEFAULT_LANES, LANE_CHOICES};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "dyngc",
    version,
    about = "Compiles .dyn stage graphs into one WGSL persistent megakernel plus a JSON manifest",
    long_about = "Compiles .dyn stage graphs into one portable WGSL persistent megakernel plus a JSON \
manifest, and runs them with wgpu.\n\nExit status: 0 on success, 1 when the program has errors or a \
run fails, 2 on usage or file errors."
)]
pub struct Cli {
    /// When to color diagnostics.
    #[arg(long, value_enum, default_value_t = ColorMode::Auto, global = true)]
    pub color: ColorMode,
    /// How to print diagnostics: for people, or one JSON object per line on stdout.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human, global = true)]
    pub message_format: MessageFormat,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorMode {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    Human,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse and check .dyn files and print their diagnostics.
    #[command(
        long_about = "Parses and checks each .dyn file and prints its diagnostics. Exits 0 when \
no file has errors (warnings are allowed), 1 when one has, 2 when a file cannot be read."
    )]
    Check(CheckArgs),
    /// Print the long explanation of a diagnostic code.
    #[command(
        long_about = "Prints the long explanation of a diagnostic code such as DYN0300 (the \
`DYN` prefix and leading zeros may be left out: `300` works). `--list` lists every code."
    )]
    Explain(ExplainArgs),
    /// Draw a program's stage graph (Graphviz DOT, SVG or PNG).
    #[command(
        long_about = "Writes the stage graph of a checked program: one node per stage and one \
for the entry; spawn edges solid, fan-out edges bold with their count, keyed spawns dashed, \
`become` dotted. SVG and PNG go through Graphviz `dot`."
    )]
    Graph(GraphArgs),
    /// Compile a program into NAME.wgsl and NAME.manifest.json.
    #[command(
        long_about = "Checks a program and generates its megakernel: writes DIR/NAME.wgsl and \
DIR/NAME.manifest.json (NAME is the file stem), and with --emit the module translated for other \
APIs. Prints the smallest arena the program accepts."
    )]
    Build(BuildArgs),
    /// Compile and run a program on the GPU, reading .npy inputs and writing .npy outputs.
    #[command(
        long_about = "Compiles a program in memory and runs it on the default WebGPU adapter \
(chosen with WGPU_BACKEND, WGPU_ADAPTER_NAME, WGPU_POWER_PREF; on a machine without a GPU set \
VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json to use SwiftShader). Inputs are .npy \
files (dtype <u4, <i4 or <f4 matching the binding; shape (N,) for scalars, (N, k) for vecK); \
every output is written to DIR/NAME.npy."
    )]
    Run(RunArgs),
    /// Open the GPU adapter `dyngc run` would use and print what it is.
    #[command(
        long_about = "Opens the adapter `dyngc run` would use (WGPU_BACKEND, WGPU_ADAPTER_NAME, \
WGPU_POWER_PREF, VK_ICD_FILENAMES) and prints its name, backend, driver and the limits that size \
runs. Exits 1 with the reason, such as a missing Vulkan loader or driver file, when none opens."
    )]
    Adapter,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The .dyn files to check.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The code, e.g. DYN0300.
    #[arg(value_name = "CODE", required_unless_present = "list")]
    pub code: Option<String>,
    /// List every code with its title.
    #[arg(long)]
    pub list: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Svg,
    Png,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The .dyn file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Output format (default: from the -o file's extension, else dot).
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<GraphFormat>,
    /// Where to write the graph (default: stdout).
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmitTarget {
    /// SPIR-V binary (NAME.spv).
    Spv,
    /// Metal Shading Language (NAME.metal).
    Msl,
    /// HLSL (NAME.hlsl).
    Hlsl,
    /// GLSL compute shaders, one per entry point (NAME.ENTRY.comp.glsl).
    Glsl,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The .dyn file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Directory for NAME.wgsl and NAME.manifest.json (created if missing).
    #[arg(long = "out-dir", short = 'o', value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Also translate the module for other APIs (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "TARGETS")]
    pub emit: Vec<EmitTarget>,
    #[command(flatten)]
    pub generate: GenerateArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The .dyn file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// An input's data: NAME=PATH.npy (once per input).
    #[arg(long = "input", short = 'i', value_name = "NAME=PATH")]
    pub inputs: Vec<String>,
    /// A parameter's value: NAME=VALUE (decimal or 0x hex; floats for f32 parameters).
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Arena size: `min`, or bytes with an optional unit (64KiB, 16MiB, 1GiB, 2MB, 1000000).
    /// Default: 64MiB, or the device's limit if smaller.
    #[arg(long, value_name = "SIZE")]
    pub arena: Option<String>,
    /// Directory for the outputs, one NAME.npy each (created if missing).
    #[arg(long = "out", short = 'o', value_name = "DIR")]
    pub out: PathBuf,
    /// Persistent workgroups to launch (clamped to what the arena and device hold). Default: 1024
    /// on a GPU; on a CPU device such as SwiftShader two per host thread, at most the manifest's
    /// default.
    #[arg(long, value_name = "N")]
    pub workgroups: Option<u32>,
    /// Scheduler steps per workgroup per launch.
    #[arg(long, value_name = "N")]
    pub fuel: Option<u32>,
    /// Elements each stream output's window holds on the device (default: twice the most one
    /// unit emits per lane in flight, at least 1048576). A full
    /// window is drained to the host and the run goes on: a small one costs time, never
    /// elements. Raised to the most one unit emits.
    #[arg(long, value_name = "N")]
    pub stream_capacity: Option<u64>,
    /// Print statistics after the run (human table, or JSON on stdout).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "human", value_name = "FORMAT")]
    pub stats: Option<StatsFormat>,
    /// Give up after this many seconds of wall-clock time, from the start of the command to the
    /// outputs read back (building and pipeline compilation included); the process exits even
    /// when a kernel never returns.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    pub timeout: f64,
    /// Run on Mesa's llvmpipe (lavapipe) anyway. It leaves long loops early without an error,
    /// which loses the persistent kernel's work: `dyngc run` refuses it unless asked.
    #[arg(long)]
    pub allow_llvmpipe: bool,
    #[command(flatten)]
    pub generate: GenerateArgs,
}

/// `--lanes`: one of [`LANE_CHOICES`].
fn parse_lanes(text: &str) -> Result<u32, String> {
    let choices = LANE_CHOICES.map(|n| n.to_string()).join(", ");
    text.parse()
        .ok()
        .filter(|n| LANE_CHOICES.contains(n))
        .ok_or_else(|| format!("expected one of {choices}"))
}

/// How `build` and `run` generate the program.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// How stages map to kernels.
    #[arg(long, value_enum, default_value_t = ScheduleChoice::Auto)]
    pub schedule: ScheduleChoice,
    /// Lanes per worker (the megakernel's workgroup size): 64, 128 or 256. More lanes share each
    /// batch's trips to memory, faster on a large GPU; the minimum arena grows with them. Only
    /// for a program without `@width` stages and `var<workgroup>` items (DYN0504).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LANES, value_parser = parse_lanes)]
    pub lanes: u32,
}

impl GenerateArgs {
    pub fn options(&self) -> Options {
        Options {
            schedule: self.schedule,
            lanes: self.lanes,
        }
    }
}
