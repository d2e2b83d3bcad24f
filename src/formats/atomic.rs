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
/// [`AtomicFile::commit`]; dropped without a commit, it leaves nothing behind.
pub struct AtomicFile {
    tmp: std::io::BufWriter<tempfile::NamedTempFile>,
    path: std::path::PathBuf,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> std::io::Result<AtomicFile> {
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
            tmp: std::io::BufWriter::new(builder.tempfile_in(dir)?),
            path: path.to_path_buf(),
        })
    }

    /// Flushes and renames the file into place.
    pub fn commit(self) -> std::io::Result<()> {
        let tmp = self.tmp.into_inner().map_err(|e| e.into_error())?;
        tmp.as_file().sync_all()?;
        tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tmp.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
