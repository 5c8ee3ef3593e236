//! The JIT: one Cranelift module per compiled graph, freed with it. Compiles go through the
//! persistent cache ([`crate::diskcache`]) when one is configured.

use crate::diskcache::{self, FileStore};
use crate::kernel::Kernel;
use crate::lower;
use crate::Error;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module, ModuleReloc};
use std::sync::atomic::Ordering;

/// The native entry of a kernel: `(bases, row_strides, inner_strides, rows, n)`.
pub type KernelFn = unsafe extern "C" fn(*const *mut u8, *const i64, *const i64, i64, i64);

/// Owns the executable memory of every kernel compiled into it.
pub struct Jit {
    module: Option<JITModule>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    pending: Vec<FuncId>,
    count: usize,
    fallbacks: Vec<String>,
    /// When set, each kernel's Cranelift IR (after Cranelift's optimisations) and machine
    /// code, for [`crate::disassemble`].
    listings: Option<Vec<String>>,
    /// The persistent cache, when configured and no listings are asked for (a cached
    /// function has no listing to show).
    store: Option<FileStore>,
}

// SAFETY: the module is only mutated through `&mut self`; finalized code is immutable and the
// function pointers handed out are plain code addresses, callable from any thread.
unsafe impl Send for Jit {}
// SAFETY: see above; `&Jit` gives no access to the module.
unsafe impl Sync for Jit {}

impl Jit {
    /// A fresh module for the host CPU (`opt_level=speed`, native ISA features).
    pub fn new() -> Result<Jit, Error> {
        let mut flags = settings::builder();
        let set = |f: &mut settings::Builder, k: &str, v: &str| {
            f.set(k, v)
                .map_err(|e| Error::Codegen(format!("setting {k}: {e}")))
        };
        set(&mut flags, "opt_level", "speed")?;
        set(&mut flags, "is_pic", "false")?;
        set(&mut flags, "use_colocated_libcalls", "false")?;
        set(
            &mut flags,
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        )?;
        let isa = cranelift_native::builder()
            .map_err(|e| Error::Codegen(format!("host ISA: {e}")))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| Error::Codegen(format!("host ISA: {e}")))?;
        let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
        for (name, address) in crate::ufunc::SYMBOLS.iter().zip(crate::ufunc::addresses()) {
            builder.symbol(*name, address);
        }
        let module = JITModule::new(builder);
        Ok(Jit {
            ctx: module.make_context(),
            module: Some(module),
            fctx: FunctionBuilderContext::new(),
            pending: Vec::new(),
            count: 0,
            fallbacks: Vec::new(),
            listings: None,
            store: diskcache::store(),
        })
    }

    /// Compiles `k`, trying the SIMD form first and falling back to scalar loops when the
    /// ISA cannot lower one of its vector instructions. Returns the function's id; the code is
    /// callable after [`Jit::finalize`].
    pub fn add(&mut self, k: &Kernel) -> Result<FuncId, Error> {
        match self.define(k, true) {
            Ok(id) => Ok(id),
            Err(e) => {
                self.fallbacks.push(e.to_string());
                self.define(k, false)
            }
        }
    }

    /// Keeps the Cranelift IR and the machine code of every kernel added from now on.
    pub fn keep_listings(&mut self) {
        self.listings.get_or_insert_with(Vec::new);
        self.store = None;
    }

    /// The listings kept since [`Jit::keep_listings`], one per kernel.
    pub fn listings(&self) -> &[String] {
        self.listings.as_deref().unwrap_or(&[])
    }

    /// Why kernels fell back to scalar loops (one entry per such kernel).
    pub fn scalar_fallbacks(&self) -> &[String] {
        &self.fallbacks
    }

    fn define(&mut self, k: &Kernel, vectorize: bool) -> Result<FuncId, Error> {
        let module = self.module.as_mut().expect("module alive");
        self.ctx.clear();
        self.ctx.func.signature = module.make_signature();
        lower::build(module, &mut self.ctx.func, &mut self.fctx, k, vectorize);
        self.finish("kernel")
    }

    /// Declares and compiles the function just built in the context, named `prefix` and the
    /// next number, keeping its listing when listings are asked for.
    fn finish(&mut self, prefix: &str) -> Result<FuncId, Error> {
        let module = self.module.as_mut().expect("module alive");
        let listing = self.listings.is_some();
        self.ctx.set_disasm(listing);
        crate::quiet::quiet_nans(&mut self.ctx.func);
        let name = format!("{prefix}{}", self.count);
        self.count += 1;
        let id = module
            .declare_function(&name, Linkage::Local, &self.ctx.func.signature)
            .map_err(|e| Error::Codegen(e.to_string()))?;
        match self.store.as_mut() {
            Some(store) => define_cached(module, id, &mut self.ctx, store)?,
            None => module
                .define_function(id, &mut self.ctx)
                .map_err(|e| Error::Codegen(format!("{e:?}")))?,
        }
        if let Some(list) = self.listings.as_mut() {
            // Compiling optimised the context's function in place: this is the IR the
            // machine code was selected from.
            let code = self.ctx.compiled_code();
            list.push(format!(
                "{name} ({} bytes)\n{}\n{}",
                code.map_or(0, |c| c.code_buffer().len()),
                self.ctx.func.display(),
                code.and_then(|c| c.vcode.clone()).unwrap_or_default()
            ));
        }
        self.pending.push(id);
        Ok(id)
    }

    /// Compiles a native statement (see [`crate::native`]); callable after [`Jit::finalize`].
    pub(crate) fn add_native(
        &mut self,
        st: &crate::native::NativeStatement,
    ) -> Result<FuncId, Error> {
        let module = self.module.as_mut().expect("module alive");
        self.ctx.clear();
        self.ctx.func.signature = module.make_signature();
        crate::native::build(module, &mut self.ctx.func, &mut self.fctx, st)?;
        self.finish("native")
    }

    /// The entry of a finalized native statement.
    pub(crate) fn get_native(&self, id: FuncId) -> crate::native::NativeFn {
        let p = self
            .module
            .as_ref()
            .expect("module alive")
            .get_finalized_function(id);
        // SAFETY: `p` is the finalized code of a function built by `native::build` with
        // exactly the `NativeFn` signature in the host's default calling convention.
        unsafe { std::mem::transmute::<*const u8, crate::native::NativeFn>(p) }
    }

    /// Makes every added kernel callable.
    pub fn finalize(&mut self) -> Result<(), Error> {
        self.module
            .as_mut()
            .expect("module alive")
            .finalize_definitions()
            .map_err(|e| Error::Codegen(e.to_string()))?;
        self.pending.clear();
        Ok(())
    }

    /// The entry of a finalized kernel.
    pub fn get(&self, id: FuncId) -> KernelFn {
        let p = self
            .module
            .as_ref()
            .expect("module alive")
            .get_finalized_function(id);
        // SAFETY: `p` is the finalized code of a function built by `lower::build` with exactly
        // the `KernelFn` signature in the host's default calling convention.
        unsafe { std::mem::transmute::<*const u8, KernelFn>(p) }
    }
}

/// Defines function `id` from the context's function as `Module::define_function` does, with
/// the machine code taken from the persistent cache when it holds this exact function for
/// this ISA, and stored there otherwise. Calls keep their callees' names, resolved by the
/// module like any other definition's.
fn define_cached(
    module: &mut JITModule,
    id: FuncId,
    ctx: &mut Context,
    store: &mut FileStore,
) -> Result<(), Error> {
    let (alignment, hit) = {
        let (code, hit) = ctx
            .compile_with_cache(module.isa(), store, &mut ControlPlane::default())
            .map_err(|e| Error::Codegen(format!("{:?}", e.inner)))?;
        (u64::from(code.buffer.alignment), hit)
    };
    let counters = &diskcache::COUNTERS;
    if hit {
        counters.hits.fetch_add(1, Ordering::Relaxed);
    } else {
        counters.misses.fetch_add(1, Ordering::Relaxed);
        if store.served() {
            counters.rejected.fetch_add(1, Ordering::Relaxed);
        }
    }
    let code = ctx.compiled_code().expect("compiled just above");
    let relocs: Vec<ModuleReloc> = code
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
        .collect();
    module
        .define_function_bytes(id, alignment, code.code_buffer(), &relocs)
        .map_err(|e| Error::Codegen(format!("{e:?}")))
}

impl Drop for Jit {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the module's code is only reachable through `KernelFn`s held by the
            // `CompiledGraph` that owns this `Jit`, which is being dropped with it.
            unsafe { m.free_memory() };
        }
    }
}
