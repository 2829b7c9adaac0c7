//! A class folder: its students' entries (a file or folder each), each resolved once and checked
//! to lie in the folder, and a student as a player of the course's forms.

use std::path::{Path, PathBuf};

/// A class folder that cannot be read, or holds nobody.
#[derive(Debug, thiserror::Error)]
pub enum ClassError {
    #[error("cannot read the class folder {}: {error}", .folder.display())]
    Unreadable { folder: PathBuf, error: std::io::Error },
    #[error("the class folder {} holds no student's program", .0.display())]
    Empty(PathBuf),
}

/// The students of a class folder: every file or sub-folder, sorted, hidden entries and
/// `__pycache__` left out.
pub fn members(class: &Path) -> Result<Vec<PathBuf>, ClassError> {
    let students = othello_plumbing::files::sorted_entries(class, |path| {
        let name = path.file_name().map_or_else(Default::default, |n| n.to_string_lossy());
        !name.starts_with('.') && name != "__pycache__"
    })
    .map_err(|error| ClassError::Unreadable {
        folder: class.to_path_buf(),
        error,
    })?;
    if students.is_empty() {
        return Err(ClassError::Empty(class.to_path_buf()));
    }
    Ok(students)
}

/// A class member's entry resolved once, links and all, and checked to lie in the class folder:
/// what its runs copy (through no link, so that an entry swapped for a link later gives nothing),
/// or why it is not run. An entry that is a link to outside the class folder (to `/etc/shadow`, or
/// the teacher's key) would be copied for the student to print.
pub fn member_entry(path: &Path) -> Result<PathBuf, String> {
    let class = path
        .parent()
        .and_then(|class| std::fs::canonicalize(class).ok())
        .ok_or_else(|| format!("cannot resolve the class folder of {}", path.display()))?;
    match std::fs::canonicalize(path) {
        Ok(target) if target.starts_with(&class) && target != class => Ok(target),
        Ok(target) => Err(format!(
            "{} is a link to {}, outside the class folder: not run",
            path.display(),
            target.display()
        )),
        Err(error) => Err(format!("cannot read {}: {error}", path.display())),
    }
}

/// A student's name in reports: a folder's name, a file's name without its extension, escaped
/// for people (`othello_plumbing::printable::name`: a control character or a byte that is not UTF-8 shows).
pub fn member_name(path: &Path) -> String {
    let name = if path.is_dir() {
        path.file_name()
    } else {
        path.file_stem()
    };
    name.map_or_else(Default::default, othello_plumbing::printable::name)
}

/// A class member as a player of `form`: `quickmove:FILE`, `strategy:FILE`, or for argv the
/// template with `{}` standing for the member's path (`python3 {}`).
pub fn member_player(
    path: &Path,
    form: crate::programs::ProgramForm,
    template: &str,
) -> Result<crate::strategy::StrategySpec, String> {
    use crate::programs::ProgramForm;
    let resolved = member_entry(path)?;
    let absolute = std::path::absolute(path).map_err(|e| e.to_string())?;
    // The text is for people (the entry's name escaped); what runs is `member`, by its bytes.
    let shown = othello_plumbing::printable::name(absolute.as_os_str());
    let text = match form {
        ProgramForm::Argv => {
            let quoted = shell_words::quote(&shown).into_owned();
            format!("argv:{}", template.replace("{}", &quoted))
        }
        _ if resolved.is_dir() => {
            return Err(format!(
                "a folder: {} programs are files (give the folder's own file)",
                form.prefix().trim_end_matches(':')
            ));
        }
        _ => format!("{}{shown}", form.prefix()),
    };
    let template = match form {
        ProgramForm::Argv => {
            shell_words::split(template).map_err(|e| format!("bad argument {template:?}: --run {e}"))?
        }
        _ => Vec::new(),
    };
    let spec: crate::strategy::StrategySpec = text
        .parse()
        .map_err(|e: crate::strategy::UnknownStrategy| e.to_string())?;
    Ok(spec.with_program(|program| program.member = Some((resolved, template))))
}
