//! Which of the run's warnings a figure carries: only those about its data. A warning that
//! names process counts (`oversubscribed at P = 4`, `at reduce 8B P=2`) belongs to the
//! figures that draw one of them; one about the benefit's bound to the benefit figures; the
//! others (clocks, an interrupted run) concern every figure. The renderer draws them in the
//! caption area under the legend, not above the panels.

use super::render::Drawable;

/// The process counts `text` names as `P = 4`, `P=4` or `P = 2, 4` (every number of the
/// list after the sign), in order of appearance.
pub fn named_procs(text: &str) -> Vec<u32> {
    let mut procs = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("P") {
        // A `P` inside a word (`MPI`, `PMIx`) names no process count.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + 1..];
        if before.is_some_and(|c| c.is_alphanumeric()) {
            continue;
        }
        let Some(after) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        // `P = 2, 4`: numbers separated by commas and spaces.
        for part in after.trim_start().split(',') {
            let digits: String = part
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            match digits.parse() {
                Ok(p) => procs.push(p),
                Err(_) => break,
            }
            if part.trim_start().len() > digits.len() {
                break; // the list ended inside this part
            }
        }
    }
    procs
}

/// The process counts a figure draws: its P axis, or those its title, subtitle and panel
/// titles name. Empty when it names none (then every warning about some P may concern it).
fn figure_procs(fig: &Drawable) -> Vec<u32> {
    let mut procs = match fig {
        Drawable::Grid(f) => {
            let mut p = f.procs.clone();
            for panel in &f.panels {
                p.extend(named_procs(&panel.title));
            }
            p
        }
        Drawable::Custom(f) => f
            .panels
            .iter()
            .flat_map(|p| named_procs(&p.title))
            .collect(),
    };
    procs.extend(named_procs(fig.title()));
    procs.extend(named_procs(fig.subtitle().lines().next().unwrap_or("")));
    procs.sort_unstable();
    procs.dedup();
    procs
}

/// True when `warning` concerns the data of `fig` (see the module's description).
pub fn concerns(warning: &str, fig: &Drawable) -> bool {
    if warning.contains("benefit") && !fig.stem().starts_with("benefit") {
        return false;
    }
    let named = named_procs(warning);
    if named.is_empty() {
        return true;
    }
    let drawn = figure_procs(fig);
    drawn.is_empty() || named.iter().any(|p| drawn.contains(p))
}

/// Keeps only the warnings of `fig` that concern its data.
pub fn keep_relevant_warnings(fig: &mut Drawable) {
    let warnings = match fig {
        Drawable::Grid(f) => std::mem::take(&mut f.warnings),
        Drawable::Custom(f) => std::mem::take(&mut f.warnings),
    };
    let kept: Vec<String> = warnings.into_iter().filter(|w| concerns(w, fig)).collect();
    match fig {
        Drawable::Grid(f) => f.warnings = kept,
        Drawable::Custom(f) => f.warnings = kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_counts_are_read_from_the_warnings_words() {
        assert_eq!(named_procs("oversubscribed at P = 4: more"), [4]);
        assert_eq!(named_procs("noise: at reduce 8B P=2, about 9 %"), [2]);
        assert_eq!(named_procs("at P = 2, 4 and P = 8"), [2, 4, 8]);
        assert!(named_procs("Open MPI with PMIx = 4").is_empty());
        assert!(named_procs("global clocks were 3 us apart").is_empty());
    }

    #[test]
    fn a_warning_goes_to_the_figures_of_its_p_and_the_bound_to_benefit_figures() {
        let mut f = crate::plot::fixtures::empty_figure();
        f.stem = "t_global_vs_p_50us".into();
        f.procs = vec![2, 4];
        let vs_p = Drawable::Grid(f.clone());
        f.procs = vec![8];
        let at_8 = Drawable::Grid(f.clone());
        f.stem = "benefit_vs_p_50us".into();
        let benefit = Drawable::Grid(f);
        let over = "oversubscribed at P = 4: more measuring ranks than cores";
        assert!(concerns(over, &vs_p) && !concerns(over, &at_8));
        let bound = "1 configuration(s) have a benefit above its bound";
        assert!(concerns(bound, &benefit) && !concerns(bound, &vs_p));
        let clocks = "global clocks were up to 3.00 us apart";
        assert!([&vs_p, &at_8, &benefit].iter().all(|f| concerns(clocks, f)));
        let mut fig = vs_p.clone();
        if let Drawable::Grid(f) = &mut fig {
            f.warnings = vec![over.into(), "oversubscribed at P = 8: ...".into()];
        }
        keep_relevant_warnings(&mut fig);
        let Drawable::Grid(f) = &fig else {
            unreachable!()
        };
        assert_eq!(f.warnings, [over]);
    }
}
