//! File output that never leaves a partial file behind as if complete.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: into a temporary file in the same directory, which
/// is then renamed over `path`. On any error the temporary file is removed and `path` is
/// left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// A file written through a temporary file beside it and renamed into place by
/// [`AtomicFile::commit`]; dropped without a commit, it leaves nothing behind. A path that
/// exists and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written
/// directly: renaming over it would replace the device or the pipe with a file.
pub struct AtomicFile {
    out: Out,
    path: std::path::PathBuf,
}

enum Out {
    Temp(std::io::BufWriter<tempfile::NamedTempFile>),
    Direct(std::io::BufWriter<std::fs::File>),
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let f = std::fs::OpenOptions::new().write(true).open(path)?;
            return Ok(AtomicFile {
                out: Out::Direct(std::io::BufWriter::new(f)),
                path: path.to_path_buf(),
            });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".acres-").suffix(".tmp");
        // tempfile creates 0600 files; an output file gets the usual 0666 less the umask.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        Ok(AtomicFile {
            out: Out::Temp(std::io::BufWriter::new(builder.tempfile_in(dir)?)),
            path: path.to_path_buf(),
        })
    }

    /// Flushes and renames the file into place (a special file: flushes it).
    pub fn commit(self) -> std::io::Result<()> {
        match self.out {
            Out::Direct(mut f) => f.flush(),
            Out::Temp(t) => {
                let tmp = t.into_inner().map_err(|e| e.into_error())?;
                tmp.as_file().sync_all()?;
                tmp.persist(&self.path).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.out {
            Out::Temp(t) => t.write(buf),
            Out::Direct(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Out::Temp(t) => t.flush(),
            Out::Direct(f) => f.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO (like /dev/null or /dev/stdout, not a regular file) is written, not
    /// replaced by a renamed file.
    #[cfg(unix)]
    #[test]
    fn a_special_file_is_written_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo on this machine: nothing to test
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        let mut f = AtomicFile::create(&fifo).unwrap();
        f.write_all(b"verdicts\n").unwrap();
        f.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"verdicts\n");
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
        // Nothing else was left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn writes_and_replaces_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_uncommitted_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        {
            let mut f = AtomicFile::create(&p).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_missing_directory_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("no/such/dir/out.txt");
        assert!(write_atomic(&p, b"x").is_err());
        assert!(!p.exists());
    }
}
