//! Typed indices into a [`Program`](crate::Program)'s tables.
//!
//! Each table has its own id type, so a resource id cannot index the stages or name a struct;
//! only the checker makes ids (from the tables it builds), so every id of a program is in range.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An index into one kind of table. Sealed: ids come from the checker and from
/// [`IdVec::iter`]/[`IdVec::ids`], never from a bare number.
pub trait Id: Copy + sealed::FromIndex {
    /// The position in its table.
    fn index(self) -> usize;
}

/// Crate-private (the module is): the checker turns the positions its graph algorithms work on
/// back into ids.
pub(crate) mod sealed {
    pub trait FromIndex {
        fn from_index(index: usize) -> Self;
    }
}

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(usize);

        impl $name {
            /// The position in its table.
            pub fn index(self) -> usize {
                self.0
            }
        }

        /// The index, as generated names (`dyn_site_3`) and stage constants spell it.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl Id for $name {
            fn index(self) -> usize {
                self.0
            }
        }

        impl sealed::FromIndex for $name {
            fn from_index(index: usize) -> Self {
                $name(index)
            }
        }
    )*};
}

ids! {
    /// A stage: an index into [`Program::stages`](crate::Program::stages).
    StageId;
    /// A resource: an index into [`Program::resources`](crate::Program::resources).
    ResourceId;
    /// A parameter: an index into [`Program::params`](crate::Program::params).
    ParamId;
    /// A struct: an index into [`Program::structs`](crate::Program::structs).
    StructId;
    /// A spawn/become site: an index into [`Program::edges`](crate::Program::edges).
    EdgeId;
}

/// A table indexed by one id type (rustc's `IndexVec`): `table[id]`, and iteration yields
/// `(id, &item)`, so positions never turn into bare numbers.
pub struct IdVec<I, T> {
    items: Vec<T>,
    _id: PhantomData<fn(I) -> I>,
}

impl<I: Id, T> IdVec<I, T> {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }

    /// `(id, &item)` in table order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + ExactSizeIterator + Clone {
        self.items.iter().enumerate().map(|(i, t)| (I::from_index(i), t))
    }

    /// The items in table order.
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Every id of the table, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + Clone {
        (0..self.items.len()).map(I::from_index)
    }

    /// A side table with one entry per id (e.g. a per-stage flag).
    pub fn map<U>(&self, mut f: impl FnMut(I, &T) -> U) -> IdVec<I, U> {
        IdVec::from_vec(self.iter().map(|(i, t)| f(i, t)).collect())
    }
}

impl<I: Id, T> IdVec<I, T> {
    /// Only the checker makes tables (and so ids).
    pub(crate) fn from_vec(items: Vec<T>) -> Self {
        IdVec {
            items,
            _id: PhantomData,
        }
    }

    /// The items as a slice, for the checker's graph algorithms (which work on positions).
    pub(crate) fn raw(&self) -> &[T] {
        &self.items
    }

    pub(crate) fn values_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    pub(crate) fn push(&mut self, item: T) -> I {
        self.items.push(item);
        I::from_index(self.items.len() - 1)
    }
}

impl<I: Id, T> Index<I> for IdVec<I, T> {
    type Output = T;

    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}

impl<I, T: Clone> Clone for IdVec<I, T> {
    fn clone(&self) -> Self {
        IdVec {
            items: self.items.clone(),
            _id: PhantomData,
        }
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<I, T> Default for IdVec<I, T> {
    fn default() -> Self {
        IdVec {
            items: Vec::new(),
            _id: PhantomData,
        }
    }
}
