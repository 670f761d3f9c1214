//! Named spaces: parameters, one tuple for a set, two for a relation.

use std::fmt;

/// A named tuple of dimensions, like isl's `S1[k, i]` or an anonymous `[x, y]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tuple {
    pub name: Option<String>,
    pub dims: Vec<String>,
}

impl Tuple {
    pub fn new(name: Option<&str>, dims: &[&str]) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dims: dims.iter().map(|d| d.to_string()).collect(),
        }
    }

    pub fn anonymous(dims: Vec<String>) -> Tuple {
        Tuple { name: None, dims }
    }

    pub fn len(&self) -> usize {
        self.dims.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }
}

/// The space of a set (`domain` only) or of a relation (`domain -> range`).
///
/// Columns of constraint rows in this space are laid out as
/// `[params | domain | range | existentials | constant]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Space {
    pub params: Vec<String>,
    pub domain: Tuple,
    pub range: Option<Tuple>,
}

impl Space {
    pub fn set(params: Vec<String>, tuple: Tuple) -> Space {
        Space {
            params,
            domain: tuple,
            range: None,
        }
    }

    pub fn relation(params: Vec<String>, domain: Tuple, range: Tuple) -> Space {
        Space {
            params,
            domain,
            range: Some(range),
        }
    }

    pub(crate) fn is_relation(&self) -> bool {
        self.range.is_some()
    }

    pub(crate) fn n_param(&self) -> usize {
        self.params.len()
    }

    pub fn n_in(&self) -> usize {
        self.domain.len()
    }

    pub(crate) fn n_out(&self) -> usize {
        self.range.as_ref().map_or(0, Tuple::len)
    }

    /// Number of set dimensions: domain plus range.
    pub fn n_dim(&self) -> usize {
        self.n_in() + self.n_out()
    }

    /// Parameters plus set dimensions: the columns before the existentials.
    pub(crate) fn n_var(&self) -> usize {
        self.n_param() + self.n_dim()
    }

    /// Column of parameter `p`.
    pub(crate) fn param_col(&self, p: usize) -> usize {
        p
    }

    /// Column of domain dimension `d`.
    pub(crate) fn in_col(&self, d: usize) -> usize {
        self.n_param() + d
    }

    /// Column of range dimension `d`.
    pub(crate) fn out_col(&self, d: usize) -> usize {
        self.n_param() + self.n_in() + d
    }

    /// Index of a parameter by name.
    pub(crate) fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p == name)
    }

    /// Names of all variable columns (params, domain, range), in column order.
    pub(crate) fn var_names(&self) -> Vec<String> {
        let mut names = self.params.clone();
        names.extend(self.domain.dims.iter().cloned());
        if let Some(r) = &self.range {
            names.extend(r.dims.iter().cloned());
        }
        names
    }
}

impl fmt::Display for Tuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.name {
            write!(f, "{n}")?;
        }
        write!(f, "[{}]", self.dims.join(", "))
    }
}
