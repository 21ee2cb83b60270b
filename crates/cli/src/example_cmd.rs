//! `bbsim example [NAME]`: the ready scenarios built into the binary, so that an installed
//! `bbsim` is enough to start (`bbsim example quickstart > q.toml && bbsim run q.toml`).

/// A scenario built into the binary.
pub struct Example {
    /// The name given to `bbsim example`.
    pub name: &'static str,
    /// One line saying what it models and which command runs it.
    pub description: &'static str,
    /// The scenario file's text.
    pub text: &'static str,
}

/// The built-in default scenario of `bbsim run`.
pub const QUICKSTART: &str = include_str!("../scenarios/quickstart.toml");

/// Every built-in scenario, in the order `bbsim example` lists them. The files live in
/// `crates/cli/scenarios/` (linked from the repository's `scenarios/`).
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "quickstart",
        description: "120-node fat-tree, a BB server under each edge switch, IOR next to a \
                      checkpointing job (bbsim run; seconds)",
        text: QUICKSTART,
    },
    Example {
        name: "net-fattree-uniform",
        description: "uniform random 512 B messages on a 128-node fat-tree (bbsim net)",
        text: include_str!("../scenarios/net-fattree-uniform.toml"),
    },
    Example {
        name: "net-dragonfly-worst-case",
        description: "every node of a dragonfly group sends to the next group; compare routings \
                      (bbsim net)",
        text: include_str!("../scenarios/net-dragonfly-worst-case.toml"),
    },
];

/// Arguments of `bbsim example`.
#[derive(clap::Args, Debug)]
pub struct ExampleArgs {
    /// The scenario to print (without one, lists them with a line each).
    pub name: Option<String>,
}

/// Prints the named scenario, or the list of scenarios.
pub fn run(a: &ExampleArgs) -> Result<(), String> {
    match &a.name {
        None => {
            let width = EXAMPLES.iter().map(|e| e.name.len()).max().unwrap_or(0);
            for e in EXAMPLES {
                println!("{:width$}  {}", e.name, e.description);
            }
            println!();
            println!("bbsim example NAME > NAME.toml prints one; bbsim run NAME.toml runs it.");
            Ok(())
        }
        Some(name) => {
            let e = find(name)?;
            print!("{}", e.text);
            Ok(())
        }
    }
}

/// The example called `name`, or an error listing the names there are.
pub fn find(name: &str) -> Result<&'static Example, String> {
    EXAMPLES.iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = EXAMPLES.iter().map(|e| e.name).collect();
        format!(
            "no built-in scenario called '{name}'; there are: {} (`bbsim example` lists them)",
            names.join(", ")
        )
    })
}
