"use client";
/** A query's three states as every page shows them: skeletons, an alert with "Try again", an empty state. */
import { Alert, Button, EmptyState, Skeleton, Stack } from "@mantine/core";
import type { ReactNode } from "react";
import { errorMessage } from "../feedback";

export interface QueryStateProps<T> {
  query: {
    data: T | undefined;
    error: unknown;
    isPending: boolean;
    isError: boolean;
    isFetching: boolean;
    /** The data is an earlier input's (`placeholderData: keepPreviousData`) while this input's is on its way. */
    isPlaceholderData?: boolean;
    refetch(): unknown;
  };
  /** What failed, e.g. "Could not load animals". */
  errorTitle: string;
  /** When it returns true for the data, `empty` is shown instead of `children`. */
  isEmpty?(data: T): boolean;
  empty?: { title: string; description?: ReactNode; action?: ReactNode };
  /** Number of skeleton rows while loading. */
  skeletonRows?: number;
  children(data: T): ReactNode;
}

export function QueryState<T>({
  query,
  errorTitle,
  isEmpty,
  empty,
  skeletonRows = 5,
  children,
}: QueryStateProps<T>) {
  const data = query.data as T;
  // An empty answer to an earlier input says nothing about this one: skeletons until this input's answer.
  const emptyPlaceholder = query.isPlaceholderData && empty && isEmpty?.(data);
  if (query.isPending || emptyPlaceholder) {
    return (
      <Stack gap="xs" role="status" aria-busy="true" aria-label="Loading">
        {Array.from({ length: skeletonRows }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
          <Skeleton key={i} height={32} />
        ))}
      </Stack>
    );
  }
  if (query.isError) {
    return (
      <Alert color="red" title={errorTitle} role="alert">
        {errorMessage(query.error)}
        <div>
          <Button
            mt="sm"
            size="xs"
            variant="default"
            onClick={() => query.refetch()}
            loading={query.isFetching}
          >
            Try again
          </Button>
        </div>
      </Alert>
    );
  }
  if (empty && isEmpty?.(data)) {
    return (
      <EmptyState title={empty.title} description={empty.description} py="xl">
        {empty.action ? <EmptyState.Actions>{empty.action}</EmptyState.Actions> : null}
      </EmptyState>
    );
  }
  return <>{children(data)}</>;
}
