// SPDX-License-Identifier: GPL-3.0-or-later
/* sysprof-report's verbs, for the verb table in main.c: each is defined in
 * its report-VERB.c (callers and callees in report-calls.c), which includes
 * this header too so that the compiler checks the definition against it. */
#pragma once

#include "report-util.h"

G_BEGIN_DECLS

extern const ReportVerb report_verb_top;
extern const ReportVerb report_verb_callers;
extern const ReportVerb report_verb_callees;
extern const ReportVerb report_verb_tree;
extern const ReportVerb report_verb_flamegraph;
extern const ReportVerb report_verb_collapsed;
extern const ReportVerb report_verb_memory;
extern const ReportVerb report_verb_marks;
extern const ReportVerb report_verb_diff;
extern const ReportVerb report_verb_threads;
extern const ReportVerb report_verb_export;
extern const ReportVerb report_verb_dbus;

G_END_DECLS
