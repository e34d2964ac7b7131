/* gml-picture-script-features.c — the picture scripts about the allocator's options and
 * PyTorch's features around it: expandable segments, views and their storage,
 * CUDA graphs' private pools, torch.compile, activation offloading, the
 * per-process memory fraction and tied embeddings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "gml-picture-script"

#include "config.h"

#include "gml-picture-scripts-private.h"

/* ------------------------------------------------------------------------- */
/* Fixed and expandable segments                                             */

/* The same tensors, one after the other until the GPU is full, with fixed
 * segments and with expandable_segments:True (c10/cuda/CUDACachingAllocator.cpp,
 * "Note [Expandable Segments]"; the comment block in gml-allocator.c). A request
 * between 1 and 10 MiB gets a 20 MiB segment of its own; what is left at the end
 * of each segment is too small for the next tensor. An expandable segment grows
 * by 20 MiB pages and the tensors lie end to end across the pages. The runs use a
 * simulated GPU of their own: mapping pages needs the CUDA virtual memory API,
 * which the lab's CUDA backend does not use. */
#define EXPANDABLE_GPU (G_GUINT64_CONSTANT (200) * MiB)

static guint
expandable_run (GmlScript  *r,
                gboolean    expandable,
                guint64     tensor,
                GmlBar    **bar)
{
  GmlAllocConf conf;
  guint n = 0;
  g_autofree char *size = gml_format_size_short (tensor);

  gml_alloc_conf_init (&conf);
  conf.expandable_segments = expandable;
  _gml_script_begin_sim_run (r,
                             g_strdup (expandable ? _("Expandable segments") : _("Fixed segments")),
                             EXPANDABLE_GPU, &conf);
  if (!expandable)
    first_step (r);
  while (r->fatal == NULL && n < 1000)
    {
      g_autofree char *label = g_strdup_printf ("t%03u", n + 1);

      if (!_gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, tensor))
        break;
      n++;
    }
  {
    g_autofree char *res = _gml_script_size (r, reserved_now (r));
    g_autofree char *alloc = _gml_script_size (r, allocated_now (r));

    if (expandable)
      /* Translators: a number of tensors, a size, sizes. */
      _gml_script_end_step (r,
                            g_strdup_printf (ngettext ("expandable_segments:True: %u tensor of %s "
                                                       "fits "
                                                             "before the next one does not; %s "
                                                             "allocated in %s reserved.",
                                                             "expandable_segments:True: %u tensors "
                                                             "of %s fit before the next one does "
                                                             "not; %s allocated in %s reserved.",
                                                       n),
                                             n, size, alloc, res));
    else
      _gml_script_end_step (r,
                            g_strdup_printf (ngettext ("Fixed segments: %u tensor of %s fits "
                                                       "before the "
                                                             "next one does not; %s allocated in "
                                                             "%s reserved.",
                                                             "Fixed segments: %u tensors of %s fit "
                                                             "before the next one does not; %s "
                                                             "allocated in %s reserved.", n),
                                             n, size, alloc, res));
  }
  *bar = _gml_script_bar (r,
                          g_strdup (expandable ? _("Expandable segments") : _("Fixed segments")));
  _gml_script_bar_measure (r, *bar, FALSE);
  return n;
}

void
_gml_kind_expandable (GmlScript              *r,
                      const GmlPictureScript *e)
{
  GmlAllocConf plain;
  guint64 tensor, block;
  GmlBar *fixed_bar, *grow_bar;
  guint fixed, grow;
  guint64 tail;
  g_autofree char *t = NULL;
  g_autofree char *tail_text = NULL;
  g_autofree char *gpu = NULL;
  g_autofree char *fixed_text = NULL;
  g_autofree char *grow_text = NULL;

  gml_alloc_conf_init (&plain);
  tensor = V ("tensor");
  block = gml_round_size (&plain, tensor);
  start (r, _("Fixed segments and expandable segments, side by side"), GML_VIEW_COMPARISON);
  r->sc->views |= 1u << GML_VIEW_FRAGMENTATION;
  fixed = expandable_run (r, FALSE, tensor, &fixed_bar);
  r->sc->setup_step = 0;
  grow = expandable_run (r, TRUE, tensor, &grow_bar);
  if (r->fatal != NULL)
    return;
  grow_bar->marked = TRUE;
  tail = GML_LARGE_BUFFER - GML_LARGE_BUFFER / block * block;
  t = _gml_script_size (r, tensor);
  tail_text = _gml_script_size (r, tail);
  gpu = _gml_script_size (r, EXPANDABLE_GPU);
  fixed_text = _gml_script_size (r, fixed * block);
  grow_text = _gml_script_size (r, grow * block);
  /* Translators: sizes and numbers of tensors. */
  _gml_script_set_caption (r, _gml_script_last_step (r),
                           g_strdup_printf (_("On a %s GPU: with fixed segments every %s tensor "
                                              "gets room in a 20 MiB segment, and the %s left at "
                                              "the end of each segment is too small for the next "
                                              "one: %u tensors fit (%s). With "
                                              "expandable_segments:True each pool has one segment "
                                              "that grows by mapping 20 MiB pages, and the tensors "
                                              "lie end to end across them: %u fit (%s). Simulated: "
                                              "mapping pages needs CUDA’s virtual memory API."),
                                            gpu, t, tail_text, fixed, fixed_text, grow, grow_text));
  _gml_script_key (r, "fixed_allocated", fixed * block);
  _gml_script_key (r, "expandable_allocated", grow * block);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* ------------------------------------------------------------------------- */
/* Views                                                                     */

/* A slice is a view: it shares its base's storage, and the storage's block is
 * freed only when the last tensor that uses it is gone (the PyTorch FAQ's "a
 * view keeps the whole storage alive"; .clone() copies what the view needs). */
void
_gml_kind_view_storage (GmlScript              *r,
                        const GmlPictureScript *e)
{
  guint64 size = V ("tensor"), slice = V ("slice");
  GmlBlockInfo block = { 0 };
  g_autofree char *t = NULL;
  g_autofree char *sl = NULL;

  start (r, _("A slice of a large tensor, and the large tensor deleted"), GML_VIEW_MEMORY_MAP);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "x", GML_CATEGORY_ACTIVATIONS, size);
  _gml_script_block (r, "x", &block);
  t = _gml_script_size (r, size);
  sl = _gml_script_size (r, slice);
  {
    g_autofree char *b = _gml_script_size (r, block.size);
    g_autofree char *a = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("x is a %s tensor: one block of %s."), t, b));
    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("y = x[:n] takes the first %s as a view: no new "
                                                 "block, memory_allocated() is still %s. Next: "
                                                 "del x."), sl, a));
  }
  {
    g_autofree char *a = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("del x drops a name, not the storage: y still "
                                                 "uses it, so the whole %s block stays allocated "
                                                 "(memory_allocated() %s) for a view of %s."),
                                               t, a, sl));
    _gml_script_mark (r, "x", FALSE, g_strdup (_("x’s storage, kept by the view y")));
    _gml_script_key (r, "memory_allocated", allocated_now (r));
  }
  r->sc->setup_step = 2;
  r->sc->focus_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "y (clone)", GML_CATEGORY_ACTIVATIONS, slice);
  _gml_script_free (r, "x");
  {
    g_autofree char *a = _gml_script_size (r, allocated_now (r));

    /* Translators: a size. */
    _gml_script_end_step (r, g_strdup_printf (_("y = y.clone() copies the slice into a block of "
                                                "its "
                                                 "own; the view is dropped and the large block is "
                                                 "freed: memory_allocated() %s."), a));
  }
}

/* ------------------------------------------------------------------------- */
/* CUDA graphs, torch.compile, offloading, limits                            */

/* A captured CUDA graph allocates from a private pool that keeps its blocks for
 * replays ("Note [Interaction with CUDA graph capture]" in the allocator: the
 * pool "reserve[s] its high-water mark of used memory away from the default
 * pools" while the graph lives). Two allocators on one arena: the pool, and the
 * default pool beside it, which sees the pool's memory as in use. */
void
_gml_kind_graph_pool (GmlScript              *r,
                      const GmlPictureScript *e)
{
  guint64 capacity = V ("capacity"), graph = V ("graph"), request = V ("request");
  guint64 held;
  g_autofree char *g = NULL;
  g_autofree char *q = NULL;
  g_autofree char *c = NULL;

  start (r, _("A captured CUDA graph, then the rest of the program"), GML_VIEW_COMPARISON);
  _gml_script_begin_run (r, g_strdup (_("The graph’s private pool")), capacity, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "static input", GML_CATEGORY_ACTIVATIONS, 4 * MiB);
  _gml_script_alloc (r, "graph temporaries", GML_CATEGORY_TEMPORARY, graph);
  _gml_script_free (r, "graph temporaries");
  held = _gml_script_stats (r)->reserved_bytes[GML_STAT_ALL].current;
  g = _gml_script_size (r, graph);
  q = _gml_script_size (r, request);
  c = _gml_script_size (r, capacity);
  {
    g_autofree char *h = _gml_script_size (r, held);

    /* Translators: sizes. */
    _gml_script_end_step (r, g_strdup_printf (_("torch.cuda.graph captures a step: its %s of "
                                                 "temporaries come from the graph’s private pool "
                                                 "and "
                                                 "are freed inside it. The pool holds %s of this "
                                                 "%s "
                                                 "GPU. Next, outside the graph, the program asks "
                                                 "for "
                                                 "%s."), g, h, c, q));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  r->sc->setup_view = GML_VIEW_MEMORY_MAP;
  {
    GmlBar *bar = _gml_script_bar (r, g_strdup (_("The graph’s private pool")));

    _gml_script_bar_measure (r, bar, FALSE);
    bar = _gml_script_bar (r, g_strdup (_("Requested outside the graph")));
    bar->parts[GML_BAR_REQUESTED] = request;
  }
  _gml_script_begin_run (r, g_strdup (_("The default pool")), capacity, held, NULL, TRUE);
  _gml_script_alloc (r, "new tensor", GML_CATEGORY_ACTIVATIONS, request);
  {
    g_autofree char *h = _gml_script_size (r, held);
    g_autofree char *f = _gml_script_size (r, capacity - held);

    if (r->oom)
      /* Translators: sizes. */
      _gml_script_end_step (r, g_strdup_printf (_("The default pool cannot use the private pool’s "
                                                   "free blocks: while the graph lives its %s (the "
                                                   "%s of temporaries among them) stay reserved "
                                                   "for "
                                                   "replays, %s of the %s are left, and the %s "
                                                   "request runs out of memory. Deleting the graph "
                                                   "(and its pool) gives the memory back."),
                                                 h, g, f, c, q));
    else
      _gml_script_end_step (r, g_strdup_printf (_("The default pool cannot use the private pool’s "
                                                   "free blocks: while the graph lives its %s (the "
                                                   "%s of temporaries among them) stay reserved "
                                                   "for "
                                                   "replays, and the %s request is served from the "
                                                   "%s "
                                                   "left of the %s."), h, g, q, f, c));
  }
  {
    GmlBar *bar = _gml_script_bar (r, g_strdup (_("Free for the default pool")));

    bar->parts[GML_BAR_DEVICE_FREE] = capacity - held;
    bar->marked = TRUE;
  }
  _gml_script_key (r, "pool", held);
  _gml_script_key (r, "request", request);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Activations a layer keeps for its backward pass, eagerly and compiled: the
 * lab's model of the min-cut partitioner of torch.compile's AOTAutograd, which
 * saves a pointwise chain's input and recomputes the cheap operations (GELU,
 * dropout from its seed) in the backward pass. */
void
_gml_kind_compile_saved (GmlScript              *r,
                         const GmlPictureScript *e)
{
  guint layers = V ("layers");
  guint64 act = V ("activation");
  /* torch._functorch.config.activation_memory_budget, in percent: below 100 a
   * third run keeps at most that share of the compiled default's activations,
   * recomputing the first linear too in as few layers as that takes (the
   * knapsack's least recomputation, for layers that cost the same). */
  guint budget = V ("budget");
  guint n_runs = budget < 100 ? 3 : 2;
  guint kept_layers = layers * budget / 100;
  guint64 kept[3] = { 0, 0, 0 };
  g_autofree char *budget_value = g_strdup_printf ("%u.%02u", budget / 100, budget % 100);
  /* Translators: %s is a number such as 0.50. */
  g_autofree char *budget_name = g_strdup_printf (_("budget %s"), budget_value);

  start (r, budget < 100
            ? _("What an MLP keeps for its backward pass: eager, compiled, and under a memory "
                "budget")
            : _("What an MLP keeps for its backward pass, eager and compiled"),
         GML_VIEW_COMPARISON);
  for (guint run = 0; run < n_runs && r->fatal == NULL; run++)
    {
      gboolean compiled = run >= 1;
      GmlBar *bar;

      if (run == 2)
        {
          _gml_script_begin_run (r, g_strdup (budget_name), GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
          for (guint l = 0; l < kept_layers; l++)
            {
              g_autofree char *fc = g_strdup_printf ("mlp.%u fc out", l);

              _gml_script_alloc (r, fc, GML_CATEGORY_ACTIVATIONS, act);
            }
          kept[2] = allocated_now (r);
          {
            g_autofree char *k = _gml_script_size (r, kept[2]);

            /* Translators: the budget (a number such as 0.50); then counts; then a size. */
            _gml_script_end_step (r, g_strdup_printf (_("activation_memory_budget = %s: the "
                                                         "partitioner recomputes the first linear "
                                                         "too in %u of the %u layers, the least "
                                                         "recomputation under the budget. Kept: "
                                                         "%s."),
                                                       budget_value,
                                                       layers - kept_layers, layers, k));
          }
          bar = _gml_script_bar (r, g_strdup (budget_name));
          _gml_script_bar_measure (r, bar, FALSE);
          bar->parts[GML_BAR_CACHED] = 0;
          bar->marked = TRUE;
          continue;
        }

      _gml_script_begin_run (r, g_strdup (compiled ? _("torch.compile") : _("Eager")),
                             GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      for (guint l = 0; l < layers; l++)
        {
          g_autofree char *fc = g_strdup_printf ("mlp.%u fc out", l);
          g_autofree char *gelu = g_strdup_printf ("mlp.%u gelu out", l);
          g_autofree char *mask = g_strdup_printf ("mlp.%u dropout mask", l);

          _gml_script_alloc (r, fc, GML_CATEGORY_ACTIVATIONS, act);
          if (!compiled)
            {
              _gml_script_alloc (r, gelu, GML_CATEGORY_ACTIVATIONS, act);
              _gml_script_alloc (r, mask, GML_CATEGORY_ACTIVATIONS, act / 2);
            }
        }
      kept[run] = allocated_now (r);
      {
        g_autofree char *k = _gml_script_size (r, kept[run]);

        /* Translators: a count, a size. */
        _gml_script_end_step (r, g_strdup_printf (compiled
                                                  ? _("Compiled: each of the %u layers keeps the "
                                                      "first linear’s output only; the GELU and "
                                                      "the "
                                                      "dropout mask are recomputed in the backward "
                                                      "pass. Kept: %s.")
                                                  : _("Eager: each of the %u layers keeps the "
                                                      "first "
                                                      "linear’s output, the GELU’s output and the "
                                                      "dropout mask. Kept: %s."), layers, k));
      }
      bar = _gml_script_bar (r, g_strdup (compiled ? _("torch.compile") : _("Eager")));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->parts[GML_BAR_CACHED] = 0;
      bar->marked = compiled && n_runs == 2;
      if (!compiled)
        r->sc->setup_step = _gml_script_last_step (r);
    }
  if (n_runs == 3)
    {
      g_autofree char *k0 = _gml_script_size (r, kept[0]);
      g_autofree char *k1 = _gml_script_size (r, kept[1]);
      g_autofree char *k2 = _gml_script_size (r, kept[2]);

      /* Translators: sizes, then the budget (a number such as 0.50), then a size. */
      _gml_script_set_caption (r, _gml_script_last_step (r),
                               g_strdup_printf (_("Eager PyTorch keeps %s for the backward pass "
                                                  "and compiled %s; with activation_memory_budget "
                                                  "= %s the partitioner keeps at most that share "
                                                  "of the compiled default, %s here, by "
                                                  "recomputing more in the backward pass."),
                                                k0, k1, budget_value, k2));
      _gml_script_key (r, "eager", kept[0]);
      _gml_script_key (r, "compiled", kept[1]);
      _gml_script_key (r, "budget", kept[2]);
      r->sc->focus_step = _gml_script_last_step (r);
      return;
    }
  {
    g_autofree char *k0 = _gml_script_size (r, kept[0]);
    g_autofree char *k1 = _gml_script_size (r, kept[1]);

    /* Translators: sizes. */
    _gml_script_set_caption (r, _gml_script_last_step (r),
                             g_strdup_printf (_("Eager PyTorch keeps %s for the backward pass; "
                                                "compiled, %s: the partitioner saves the cheap "
                                                "operations’ input and recomputes them, trading a "
                                                "little compute for memory. The weights, gradients "
                                                "and optimizer state are the same in both."),
                                              k0, k1));
    _gml_script_key (r, "eager", kept[0]);
    _gml_script_key (r, "compiled", kept[1]);
  }
  r->sc->focus_step = _gml_script_last_step (r);
}

/* torch.autograd.graph.save_on_cpu: every tensor autograd saves goes to (pinned)
 * host RAM at once, and comes back for the backward pass. */
void
_gml_kind_offload_activations (GmlScript              *r,
                               const GmlPictureScript *e)
{
  guint layers = V ("layers");
  guint64 act = V ("activation"), weight = V ("weight");
  guint64 gpu[2] = { 0, 0 };
  GmlBar *bar;

  start (r, _("Saved activations on the GPU, or in host RAM"), GML_VIEW_COMPARISON);
  for (guint run = 0; run < 2 && r->fatal == NULL; run++)
    {
      gboolean offload = run == 1;

      _gml_script_begin_run (r, g_strdup (offload ? _("save_on_cpu") : _("Saved on the GPU")),
                             GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
      if (run == 0)
        first_step (r);
      _gml_script_alloc (r, "weights", GML_CATEGORY_WEIGHTS, weight);
      for (guint l = 0; l < layers; l++)
        {
          g_autofree char *label = g_strdup_printf ("layer %u saved", l + 1);

          _gml_script_alloc (r, label, GML_CATEGORY_ACTIVATIONS, act);
          /* Packed by the hook: copied to host RAM, the GPU tensor freed. */
          if (offload)
            _gml_script_free (r, label);
        }
      gpu[run] = allocated_now (r);
      {
        g_autofree char *g = _gml_script_size (r, gpu[run]);
        g_autofree char *h = _gml_script_size (r, act * layers);

        /* Translators: sizes. */
        _gml_script_end_step (r, offload
                              ? g_strdup_printf (_("With save_on_cpu the forward pass copies each "
                                                   "saved tensor to host RAM (%s there) and the "
                                                   "GPU "
                                                   "holds %s at the end of the forward pass."),
                                                 h, g)
                              : g_strdup_printf (_("Saved on the GPU: at the end of the forward "
                                                   "pass it holds the weights and %s of saved "
                                                   "activations, %s in all."), h, g));
      }
      bar = _gml_script_bar (r, g_strdup (offload ? _("GPU, save_on_cpu") : _("GPU, saved there")));
      _gml_script_bar_measure (r, bar, FALSE);
      bar->parts[GML_BAR_CACHED] = 0;
      bar->marked = offload;
      if (offload)
        {
          bar = _gml_script_bar (r, g_strdup (_("Host RAM, save_on_cpu")));
          bar->parts[GML_BAR_PINNED] = act * layers;
          bar->marked = TRUE;
        }
      else
        r->sc->setup_step = _gml_script_last_step (r);
    }
  _gml_script_key (r, "gpu_saved", gpu[0]);
  _gml_script_key (r, "gpu_offloaded", gpu[1]);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* torch.cuda.set_per_process_memory_fraction(f): the allocator refuses to
 * reserve beyond f × the GPU's memory (alloc_block checks it), however much the
 * device has free. The arena is the allowed share. */
void
_gml_kind_fraction (GmlScript              *r,
                    const GmlPictureScript *e)
{
  guint64 total = V ("total"), allowed = V ("allowed"), used = V ("used"), request = V ("request");
  guint64 s = choose_scale (total, lab_arena (r), &used, 1, 2 * MiB);
  g_autofree char *t = NULL;
  g_autofree char *a = NULL;
  g_autofree char *q = NULL;

  start (r, _("A per-process memory fraction"), GML_VIEW_MEMORY_MAP);
  set_scale (r, s);
  _gml_script_begin_run (r, NULL, allowed / s, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "model and activations", GML_CATEGORY_ACTIVATIONS, used / s);
  t = _gml_script_size (r, total / s);
  a = _gml_script_size (r, allowed / s);
  q = _gml_script_size (r, request / s);
  {
    g_autofree char *u = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes. */
    _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("The GPU has %s; the process has "
                                                               "set a memory fraction and holds "
                                                               "%s. Next it asks for %s."),
                                                             t, u, q)));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "next tensor", GML_CATEGORY_ACTIVATIONS, request / s);
  {
    g_autofree char *f = _gml_script_size (r, (total - allowed) / s);

    if (r->oom)
      /* Translators: sizes. */
      {
        g_autofree char *u = _gml_script_size (r, used / s);

        /* Translators: sizes. */
        _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("CUDA out of memory: %s held "
                                                                   "and "
                                                                   "%s more would take the process "
                                                                   "past the %s it is allowed of "
                                                                   "the GPU’s %s, although %s are "
                                                                   "outside its share; the message "
                                                                   "names the share "
                                                                   "(“… allowed;”)."),
                                                                 u, q, a, t, f)));
      }
    else
      _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("The request fits in the %s the "
                                                                 "process is allowed."), a)));
  }
  _gml_script_key (r, "allowed", allowed / s);
  r->sc->focus_step = _gml_script_last_step (r);
}

/* Tied embeddings: GPT-2's output layer is the token embedding's matrix
 * (lm_head.weight is transformer.wte.weight), stored once. The model's fp32
 * weights by module, and the head that an untied model would add. */
void
_gml_kind_tied_embeddings (GmlScript              *r,
                           const GmlPictureScript *e)
{
  guint64 vocab = V ("vocab"), hidden = V ("hidden"), positions = V ("positions");
  guint64 layers = V ("layers"), block = V ("block");
  guint64 wte = vocab * hidden, total = wte + positions * hidden + layers * block + 2 * hidden;
  guint64 needed = 4 * (total + wte);
  guint64 s = choose_scale (needed, lab_arena (r), NULL, 0, 1);
  g_autofree char *n_total = gml_format_grouped (total);
  g_autofree char *n_head = gml_format_grouped (wte);
  g_autofree char *n_untied = gml_format_grouped (total + wte);

  start (r, _("GPT-2’s weights, module by module"), GML_VIEW_MEMORY_MAP);
  set_scale (r, s);
  _gml_script_begin_run (r, NULL, GML_SCRIPT_LAB_ARENA, 0, NULL, FALSE);
  first_step (r);
  _gml_script_alloc (r, "transformer.wpe", GML_CATEGORY_WEIGHTS, 4 * positions * hidden / s);
  _gml_script_alloc (r, "transformer.h (blocks)", GML_CATEGORY_WEIGHTS, 4 * layers * block / s);
  _gml_script_alloc (r, "transformer.ln_f", GML_CATEGORY_WEIGHTS, MAX (4 * 2 * hidden / s, 1));
  {
    g_autofree char *b = _gml_script_size (r, 4 * layers * block / s);

    /* Translators: a count of layers, a size. */
    _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("The positions, the %u blocks (%s) "
                                                               "and the final LayerNorm, in fp32. "
                                                               "Next: the token embedding and the "
                                                               "output layer."),
                                                             (guint) layers, b)));
  }
  r->sc->setup_step = _gml_script_last_step (r);
  _gml_script_alloc (r, "transformer.wte = lm_head", GML_CATEGORY_WEIGHTS, 4 * wte / s);
  {
    g_autofree char *w = _gml_script_size (r, 4 * wte / s);
    g_autofree char *all = _gml_script_size (r, allocated_now (r));

    /* Translators: sizes and parameter counts. */
    _gml_script_end_step (r, with_scale (r, g_strdup_printf (_("One %s matrix of %s parameters is "
                                                               "both the token embedding (wte) and "
                                                               "the output layer (lm_head): %s "
                                                               "parameters, %s of fp32 weights. An "
                                                               "untied head would add another %s: "
                                                               "%s parameters."),
                                                             w, n_head, n_total, all, w,
                                                             n_untied)));
    _gml_script_mark (r, "transformer.wte = lm_head", FALSE,
                      g_strdup_printf (_("wte and lm_head: one %s tensor"), w));
    _gml_script_key (r, "weights", allocated_now (r));
    _gml_script_key (r, "tied_matrix", 4 * wte / s);
  }
  r->sc->focus_step = _gml_script_last_step (r);
  /* Only the tied matrix is outlined, not every weight. */
  r->sc->focus_category = GML_CATEGORY_NONE;
}

gboolean
_gml_kind_check_lab (const GmlPictureScript *e,
                     char                  **field,
                     char                  **reason)
{
  if (!_gml_lab_check_args (_gml_picture_script_text (e, "config"), reason))
    {
      *field = g_strdup ("experiment.config");
      return FALSE;
    }
  return TRUE;
}
